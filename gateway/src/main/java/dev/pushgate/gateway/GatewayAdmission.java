package dev.pushgate.gateway;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The gateway-wide bound of {@link AdmissionLimits#requests}: a request past it is shed at once,
 * so that the gateway never holds every request thread, and {@code /healthz}, {@code /readyz},
 * the runs' hook calls and the sheds themselves always find one.
 *
 * <p>Past the limit, a small reserve ({@link AdmissionLimits#reserve}) admits a request only of a run that
 * holds no admission: a few runs that keep requests open (a dripped pack) cannot then shut every
 * other run out, while a run already served is shed as before
 * (docs/operations.md#when-the-gateway-is-full).
 */
final class GatewayAdmission {
  private final int limit;
  private final int reserve;
  /** Admissions held per run id; a run holding none has no entry. */
  private final Map<String, Integer> heldByRun = new HashMap<>();
  private int held;

  GatewayAdmission(AdmissionLimits limits) {
    this.limit = limits.requests();
    this.reserve = limits.reserve();
  }

  /**
   * A place for one request of the run, to be closed when it ends; empty when the gateway is full
   * for this run: its limit is taken and the run already holds a place, or the reserve is taken
   * too.
   */
  synchronized Optional<Ticket> tryAdmit(String runId) {
    int ofRun = heldByRun.getOrDefault(runId, 0);
    boolean admitted = held < limit || ofRun == 0 && held < limit + reserve;
    if (!admitted) {
      return Optional.empty();
    }
    held++;
    heldByRun.put(runId, ofRun + 1);
    return Optional.of(new Ticket(runId));
  }

  private synchronized void release(String runId) {
    held--;
    heldByRun.computeIfPresent(runId, (id, n) -> n == 1 ? null : n - 1);
  }

  /** Requests admitted and not yet ended, of every run. */
  synchronized int held() {
    return held;
  }

  /** Why a request was shed, to be rendered as a refusal. */
  String shedReason() {
    return "the gateway is working on its limit of " + limit + " git requests at once;"
        + " nothing was done, retry in a few seconds";
  }

  /** One admitted request; closing it again does nothing. */
  final class Ticket implements AutoCloseable {
    private final String runId;
    private boolean closed;

    private Ticket(String runId) {
      this.runId = runId;
    }

    @Override
    public synchronized void close() {
      if (!closed) {
        closed = true;
        release(runId);
      }
    }
  }
}
