package dev.pushgate.gateway;

import java.util.Objects;

/**
 * What every push through the gateway shares: its settings, upstream (every mint within the
 * run's budget), the audit log, the approvers, the metrics, the forwarder, the repository caches,
 * the threads and the count of pushes waiting on a person.
 */
record GatewayServices(
    GatewayConfig config,
    UpstreamAccess upstream,
    AuditLog audit,
    Approvals approvals,
    PushMetrics metrics,
    Forwarder forwarder,
    UpstreamCache cache,
    GatewayThreads threads,
    HeldPushes held) {

  GatewayServices {
    Objects.requireNonNull(config, "config");
    approvals = approvals == null ? Approvals.NONE : approvals;
    metrics = metrics == null ? PushMetrics.NONE : metrics;
    Objects.requireNonNull(forwarder, "forwarder");
    Objects.requireNonNull(threads, "threads");
    held = held == null ? new HeldPushes() : held;
  }
}
