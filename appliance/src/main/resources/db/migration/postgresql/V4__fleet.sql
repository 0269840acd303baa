-- A fleet on one database (docs/operations.md#a-fleet-on-one-database): a question records the
-- host holding it, its deadline and its commits, so that an approver on any host sees it whole
-- and answers it here, first answer wins (UPDATE … WHERE ended_at IS NULL).
ALTER TABLE approvals ADD COLUMN host TEXT;
ALTER TABLE approvals ADD COLUMN deadline BIGINT;
ALTER TABLE approvals ADD COLUMN commits TEXT;
CREATE INDEX approvals_open ON approvals(ended_at, host);

-- Each appliance's heartbeat, in the database's own clock (so hosts' clocks need not agree):
-- whether an approver is connected to it, and when it last wrote. A host not seen lately is
-- down: its open questions are withdrawn, and it counts as no approver.
CREATE TABLE fleet_presence (
  host TEXT PRIMARY KEY,
  approver BOOLEAN NOT NULL,
  seen_at BIGINT NOT NULL);
