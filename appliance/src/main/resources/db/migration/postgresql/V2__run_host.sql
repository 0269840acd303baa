-- The host whose appliance started a run. Hosts sharing one database recover, sweep and revoke
-- only their own runs (and any ended run's leftovers); NULL is a run from before this column,
-- which only a single host can have written.
ALTER TABLE runs ADD COLUMN host TEXT;
