package dev.pushgate.gateway.api;

import java.time.Instant;

/**
 * One audited decision on one action of a GitHub API call, written beside the pushes. Never the
 * token, never the body: the method, the path (as sent, no query), what the judge read it as, and
 * what became of it.
 *
 * @param decision {@code allowed}, {@code denied}, or {@code asked} (then {@code reason} says who
 *     answered what)
 * @param status 0 when the call was not forwarded, -1 when it was (written before it goes)
 */
public record ApiRecord(
    Instant at,
    String runId,
    String workspaceId,
    String method,
    String host,
    String path,
    String kind,
    String repository,
    String target,
    String decision,
    String reason,
    int status,
    long durationMillis) {}
