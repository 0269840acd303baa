-- Only an outcome record settles another, so only those rows need an entry in audit_settles:
-- every other append (an API call, a push's decision, a token, a question) then writes one index
-- page fewer in its transaction, which is on the decision's path (docs/audit.md). Lookups are
-- "settles = ?", which implies "settles IS NOT NULL", so they still use the index.
DROP INDEX audit_settles;
CREATE INDEX audit_settles ON audit(settles) WHERE settles IS NOT NULL;
