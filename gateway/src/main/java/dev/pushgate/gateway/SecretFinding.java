package dev.pushgate.gateway;

/**
 * A secret found in a blob: which detector, and the 1-based line it starts on. Never the secret
 * itself, so that nothing the gateway writes (refusals, audit, logs) can hold it.
 */
record SecretFinding(String detectorId, long line) {}
