-- The schema pushgate created before it had migrations (Database.SCHEMA, CREATE TABLE IF NOT
-- EXISTS). A file that already has these tables is baselined at version 1 instead.

CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL,
  session_id TEXT,
  agent_id TEXT,
  mode TEXT NOT NULL,
  repository TEXT NOT NULL,
  repository_id INTEGER,
  attached TEXT NOT NULL,
  rules TEXT NOT NULL,
  credential_hash TEXT NOT NULL UNIQUE,
  git_config_path TEXT,
  backend TEXT,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  ended_at INTEGER,
  end_reason TEXT);

CREATE TABLE credentials (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  repository TEXT NOT NULL,
  token BLOB NOT NULL,
  issued_at INTEGER NOT NULL,
  expires_at INTEGER,
  revoked_at INTEGER,
  revoke_attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT);

CREATE INDEX credentials_live ON credentials(revoked_at, run_id);

CREATE TABLE audit (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at INTEGER NOT NULL,
  run_id TEXT NOT NULL,
  workspace_id TEXT,
  repository TEXT NOT NULL,
  ref TEXT,
  old_id TEXT,
  new_id TEXT,
  kind TEXT,
  decision TEXT NOT NULL,
  rule TEXT,
  code TEXT,
  reason TEXT,
  outcome TEXT,
  duration_ms INTEGER);

CREATE INDEX audit_run ON audit(run_id);

CREATE TABLE approvals (
  id TEXT PRIMARY KEY,
  action TEXT NOT NULL,
  run_id TEXT NOT NULL,
  workspace_id TEXT,
  repository TEXT,
  ref TEXT,
  kind TEXT,
  old_id TEXT,
  new_id TEXT,
  command TEXT,
  rule TEXT,
  reason TEXT,
  asked_at INTEGER NOT NULL,
  ended_at INTEGER,
  outcome TEXT,
  answered_by TEXT,
  answer_reason TEXT);

CREATE TABLE forge_tokens (
  hash TEXT PRIMARY KEY,
  repository_ids TEXT NOT NULL,
  permissions TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  revoked_at INTEGER);
