-- The question columns a PostgreSQL fleet uses (postgresql/V4__fleet.sql), so that both schemas
-- stay alike; a single host writes them and reads none.
ALTER TABLE approvals ADD COLUMN host TEXT;
ALTER TABLE approvals ADD COLUMN deadline BIGINT;
ALTER TABLE approvals ADD COLUMN commits TEXT;
