-- The tamper-evident audit (docs/audit.md): every record is chained per host; rows are never
-- updated once chained, so a push's outcome is a record of its own that names the decision it
-- settles. Rows written before this version are chained by V3.1 under the pseudo-host
-- "(before-chain)".
ALTER TABLE audit ADD COLUMN record_type TEXT;
ALTER TABLE audit ADD COLUMN settles INTEGER;
ALTER TABLE audit ADD COLUMN subject TEXT;
ALTER TABLE audit ADD COLUMN actor TEXT;
ALTER TABLE audit ADD COLUMN host TEXT;
ALTER TABLE audit ADD COLUMN seq INTEGER;
ALTER TABLE audit ADD COLUMN prev_hash TEXT;
ALTER TABLE audit ADD COLUMN hash TEXT;
ALTER TABLE audit ADD COLUMN chained TEXT;

-- Two processes that wrongly share a host id cannot fork its chain silently: the second
-- record at one sequence number is refused.
CREATE UNIQUE INDEX audit_chain ON audit(host, seq);
CREATE INDEX audit_settles ON audit(settles);

-- Each host's last record. Appends lock their host's row, so writers serialise per chain; the
-- verifier also compares it with the last record found, which reveals a cut-off tail unless the
-- head was rewritten too.
CREATE TABLE audit_heads (
  host TEXT PRIMARY KEY,
  seq INTEGER NOT NULL,
  hash TEXT NOT NULL);
