package dev.pushgate.gateway;

import java.util.Optional;
import java.util.concurrent.Semaphore;

/**
 * The gateway-wide bound of {@link AdmissionLimits#requests}: a request past it is shed at once,
 * so that the gateway never holds every request thread, and {@code /healthz}, {@code /readyz},
 * the runs' hook calls and the sheds themselves always find one.
 */
final class GatewayAdmission {
  private final int limit;
  private final Semaphore permits;

  GatewayAdmission(AdmissionLimits limits) {
    this.limit = limits.requests();
    this.permits = new Semaphore(limit);
  }

  /** A place for one request, to be closed when it ends; empty when the gateway is full. */
  Optional<Ticket> tryAdmit() {
    return permits.tryAcquire() ? Optional.of(new Ticket()) : Optional.empty();
  }

  /** Why a request was shed, to be rendered as a refusal. */
  String shedReason() {
    return "the gateway is working on its limit of " + limit + " git requests at once;"
        + " nothing was done, retry in a few seconds";
  }

  /** One admitted request; closing it again does nothing. */
  final class Ticket implements AutoCloseable {
    private boolean closed;

    private Ticket() {}

    @Override
    public synchronized void close() {
      if (!closed) {
        closed = true;
        permits.release();
      }
    }
  }
}
