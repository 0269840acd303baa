package dev.pushgate.gateway;

import java.time.Instant;
import java.util.Objects;

/**
 * One audited decision on one ref update. {@code code} is null when the update was allowed;
 * {@code outcome} says what happened upstream ({@code ok}, a rejection, or {@code not forwarded}).
 */
public record PushRecord(
    Instant at,
    String runId,
    String workspaceId,
    String repository,
    String ref,
    String oldId,
    String newId,
    String kind,
    String decision,
    String rule,
    RefusalCode code,
    String reason,
    String outcome,
    long durationMillis) {

  public PushRecord {
    Objects.requireNonNull(at, "at");
    Objects.requireNonNull(runId, "runId");
    Objects.requireNonNull(repository, "repository");
    Objects.requireNonNull(decision, "decision");
  }

  public boolean refused() {
    return code != null || !"ok".equals(outcome);
  }
}
