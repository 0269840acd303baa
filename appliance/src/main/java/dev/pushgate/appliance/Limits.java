package dev.pushgate.appliance;

import dev.pushgate.gateway.AdmissionLimits;
import java.lang.management.ManagementFactory;
import java.time.Duration;

/**
 * What one run may take of what every run shares, and how many connections the run-facing
 * ports hold at once. A run past its share is refused at once, never queued: a queue would let
 * one run delay the others.
 *
 * @param maxConnections connections the loopback port and the sandbox socket hold together; 0
 *     for half of the process's file descriptor limit, at most {@value #AUTO_CONNECTIONS_CAP}
 * @param requestsPerRun git requests of one run in flight at once
 * @param hookCallsPerRun hook calls of one run in flight at once, held questions included
 * @param questionsPerRun questions of one run waiting for an approver at once
 * @param hookBodyTimeout how long a hook call's whole body may take to arrive
 * @param admission what the gateway's git requests of all runs may take at once, and how long
 *     they may wait for one repository
 */
public record Limits(int maxConnections, int requestsPerRun, int hookCallsPerRun,
    int questionsPerRun, Duration hookBodyTimeout, AdmissionLimits admission) {
  /**
   * Request threads beyond the gateway's admitted requests: for {@code /healthz}, {@code
   * /readyz}, {@code /metrics}, the runs' hook calls, the approvals page, Jetty's own acceptors
   * and selectors, and the short answers given before admission (sheds, refusals).
   */
  static final int RESERVED_THREADS = 64;

  static final int AUTO_CONNECTIONS_CAP = 4096;

  public Limits {
    check("--max-connections", maxConnections, 0);
    check("--max-run-requests", requestsPerRun, 1);
    check("--max-run-hook-calls", hookCallsPerRun, 1);
    check("--max-run-questions", questionsPerRun, 1);
    if (hookBodyTimeout == null || hookBodyTimeout.isNegative() || hookBodyTimeout.isZero()) {
      throw new IllegalArgumentException("--hook-body-timeout must be positive: " + hookBodyTimeout);
    }
    java.util.Objects.requireNonNull(admission, "admission");
  }

  public static Limits defaults() {
    return new Limits(0, 16, 16, 8, Duration.ofSeconds(10), AdmissionLimits.DEFAULTS);
  }

  /**
   * The loopback port's request threads: the gateway's admitted requests (its limit and the
   * limit's reserve for runs holding none) and a reserve the gateway cannot take, so that a crowd
   * of pushes never leaves {@code /healthz} without one.
   */
  public int requestThreads() {
    return admission.admitted() + RESERVED_THREADS;
  }

  /** The connection cap in force: the one set, or half of the file descriptors the process has. */
  public int connections() {
    if (maxConnections > 0) {
      return maxConnections;
    }
    long fds = ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.UnixOperatingSystemMXBean unix
        ? unix.getMaxFileDescriptorCount() : 2048;
    return (int) Math.max(64, Math.min(AUTO_CONNECTIONS_CAP, fds / 2));
  }

  private static void check(String option, int value, int least) {
    if (value < least) {
      throw new IllegalArgumentException(option + " must be at least " + least + ": " + value);
    }
  }
}
