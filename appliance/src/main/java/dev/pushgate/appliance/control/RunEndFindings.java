package dev.pushgate.appliance.control;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.appliance.runs.RunRequestException;
import dev.pushgate.appliance.runs.Runs;
import dev.pushgate.appliance.store.AuditStore;
import dev.pushgate.appliance.store.Ledger;
import dev.pushgate.sandbox.SandboxViolation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts what a run's end-of-run check found (git metadata moved aside or put back, files a host
 * tool runs) in the run's audit timeline, one {@code run-end-finding} record each. Two doors
 * lead here: a launch the appliance runs ({@link LaunchApi}) and {@code pushgate exec}, whose
 * launcher runs in its own process and reports through {@code POST /v1/runs/{id}/findings}.
 */
final class RunEndFindings {
  private static final Logger log = LoggerFactory.getLogger(RunEndFindings.class);

  /** Longer text is cut: a finding names a path and says what was done. */
  static final int MAX_TEXT = 4096;

  private final Runs runs;
  private final AuditStore audit;

  RunEndFindings(Runs runs, AuditStore audit) {
    this.runs = runs;
    this.audit = audit;
  }

  /** Records a finding of a launch the appliance ran; a failure is logged, never thrown. */
  void onViolation(String runId, SandboxViolation v) {
    if (!v.endOfRun()) {
      return;
    }
    try {
      record(runId, v);
    } catch (Exception e) {
      log.warn("run {}: an end-of-run finding did not reach the audit ({}): {}", runId,
          e.getMessage(), v.raw());
    }
  }

  /**
   * Records the findings of {@code body}, {@code {"findings": [{"action", "target", "detail"}]}},
   * for the run {@code runId}; answers how many. Only end-of-run actions are taken.
   */
  int record(String runId, JsonNode body) throws Exception {
    JsonNode list = body.path("findings");
    if (!list.isArray() || list.isEmpty()) {
      throw new RunRequestException(RunRequestException.Status.BAD_REQUEST,
          "findings must be a non-empty array of {action, target, detail}");
    }
    for (JsonNode f : list) {
      if (!f.path("action").isTextual() || !f.path("target").isTextual()
          || !f.path("detail").isTextual()) {
        throw new RunRequestException(RunRequestException.Status.BAD_REQUEST,
            "each finding needs action, target and detail as strings");
      }
      SandboxViolation v = new SandboxViolation(f.get("action").asText(),
          f.get("target").asText(), f.get("detail").asText());
      if (!v.endOfRun()) {
        throw new RunRequestException(RunRequestException.Status.BAD_REQUEST,
            "not an end-of-run finding: action " + dev.pushgate.types.UntrustedText.printable(
                v.action()));
      }
    }
    for (JsonNode f : list) {
      record(runId, new SandboxViolation(f.get("action").asText(), f.get("target").asText(),
          f.get("detail").asText()));
    }
    return list.size();
  }

  private void record(String runId, SandboxViolation v) throws Exception {
    Ledger.RunRow run = runs.find(runId).orElseThrow(() -> new RunRequestException(
        RunRequestException.Status.NOT_FOUND, "no such run"));
    audit.recordFinding(run.id(), run.repository(), v.action(), cut(v.target()), cut(v.raw()));
  }

  private static String cut(String s) {
    return s.length() <= MAX_TEXT ? s : s.substring(0, MAX_TEXT) + "…";
  }
}
