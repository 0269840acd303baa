package dev.pushgate.appliance;

import dev.pushgate.approvals.Answer;
import dev.pushgate.approvals.ApprovalLog;
import dev.pushgate.approvals.Question;
import dev.pushgate.gateway.PushMetrics;
import dev.pushgate.gateway.RefusalCode;
import dev.pushgate.types.AuditEntry;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.function.Supplier;
import okhttp3.Interceptor;

/**
 * The appliance's metrics, scraped in Prometheus format at {@code GET /metrics}: push and hook
 * decisions, forward and sync latency, approvals, tokens minted and revoked, GitHub API calls and
 * the rate limit left, live runs; the JVM's and the process's; {@code pushgate_build_info}.
 * Counters whose labels are known in advance are registered at zero at start, so that a rate over
 * them is defined before the first event. Histograms have the fixed buckets of {@link #BUCKETS}.
 * The list, with types and labels, is in docs/operations.md#metrics.
 */
final class Metrics implements PushMetrics, AutoCloseable {
  /** The buckets of every latency histogram: 15, from 5 ms to 5 min (a forward's bound). */
  static final Duration[] BUCKETS = java.util.stream.Stream.of(5L, 10L, 25L, 50L, 100L, 250L,
      500L, 1_000L, 2_500L, 5_000L, 10_000L, 30_000L, 60_000L, 120_000L, 300_000L)
      .map(Duration::ofMillis).toArray(Duration[]::new);
  /** Push kinds, as {@code AuditEntry}'s kind ids. */
  private static final java.util.List<String> KINDS =
      java.util.List.of("create", "update", "force", "delete", "update-or-force");

  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Timer forward;
  private final Timer sync;
  private final JvmGcMetrics gc = new JvmGcMetrics();
  private final GitHubCallMetrics github = new GitHubCallMetrics(registry);

  Metrics() {
    forward = Timer.builder("pushgate.forward").description("Forwarding a push upstream")
        .serviceLevelObjectives(BUCKETS).register(registry);
    sync = Timer.builder("pushgate.cache.sync").description("Syncing a cache from upstream")
        .serviceLevelObjectives(BUCKETS).register(registry);
    new JvmMemoryMetrics().bindTo(registry);
    gc.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    new FileDescriptorMetrics().bindTo(registry);
    Gauge.builder("pushgate.build.info", () -> 1).description("The running build; always 1")
        .tag("version", version()).strongReference(true).register(registry);
    registerZeros();
  }

  /** Every counter whose labels are known, at zero. */
  private void registerZeros() {
    for (String kind : KINDS) {
      pushDecisions(kind, AuditEntry.Decision.ALLOWED, null);
      for (RefusalCode code : RefusalCode.values()) {
        pushDecisions(kind, AuditEntry.Decision.DENIED, code);
      }
    }
    for (String decision : java.util.List.of("allow", "ask", "deny")) {
      hookDecisions(decision);
    }
    for (String outcome : java.util.List.of("minted", "minted-with-workflows", "failed",
        "rate-limited")) {
      writeTokenMints(outcome);
    }
    for (String outcome : java.util.List.of("ok", "failed", "dropped")) {
      webhookDeliveries(outcome);
    }
    for (String door : java.util.List.of("fetch", "push")) {
      for (String limit : java.util.List.of("gateway", "repository")) {
        gitRequestsShed(door, limit);
      }
    }
  }

  private Counter gitRequestsShed(String door, String limit) {
    return Counter.builder("pushgate.git.requests.shed")
        .description("Git requests the gateway shed with a message to retry, nothing done, by door"
            + " (fetch, push) and the limit that was full (gateway, repository)")
        .tag("door", door).tag("limit", limit).register(registry);
  }

  @Override
  public void onShed(String door, String limit) {
    gitRequestsShed(door, limit).increment();
  }

  private Counter webhookDeliveries(String outcome) {
    return Counter.builder("pushgate.webhook.deliveries")
        .description("Approval events for webhooks, by outcome (ok, failed after its retries,"
            + " dropped unsent: queue full or stopping)")
        .tag("outcome", outcome).register(registry);
  }

  /** Counts one webhook delivery's outcome: {@code ok}, {@code failed} or {@code dropped}. */
  void onWebhookDelivery(String outcome) {
    webhookDeliveries(outcome).increment();
  }

  /** The jar's version (its manifest's), or {@code dev} when run from classes. */
  private static String version() {
    String v = Metrics.class.getPackage().getImplementationVersion();
    return v == null ? "dev" : v;
  }

  @Override
  public void close() {
    gc.close();
  }

  private Counter pushDecisions(String kind, AuditEntry.Decision decision, RefusalCode code) {
    return Counter.builder("pushgate.push.decisions").description("Ref updates decided by the gateway")
        .tag("kind", kind == null ? "none" : kind).tag("decision", decision.id())
        .tag("code", code == null ? "none" : code.name()).register(registry);
  }

  private Counter hookDecisions(String decision) {
    return Counter.builder("pushgate.hook.decisions")
        .description("Claude Code hook calls decided, by decision (allow, ask, deny)")
        .tag("decision", decision).register(registry);
  }

  private Counter writeTokenMints(String outcome) {
    return Counter.builder("pushgate.write.token.mints")
        .description("Write tokens the gateway asked for, by outcome (rate-limited: not asked)")
        .tag("outcome", outcome).register(registry);
  }

  /** Counts one decision of the Claude Code hook: {@code allow}, {@code ask} or {@code deny}. */
  void onHookDecision(String decision) {
    hookDecisions(decision).increment();
  }

  String scrape() {
    return registry.scrape();
  }

  void gauge(String name, String description, Supplier<Number> value) {
    Gauge.builder(name, value).description(description).register(registry);
  }

  @Override
  public void onDecision(String kind, AuditEntry.Decision decision, RefusalCode code) {
    pushDecisions(kind, decision, code).increment();
  }

  @Override
  public void onForward(Duration took, boolean ok, boolean streamed) {
    forward.record(took);
    Counter.builder("pushgate.forwards").tag("outcome", ok ? "ok" : "failed")
        .tag("mode", streamed ? "streamed" : "stored").register(registry).increment();
  }

  @Override
  public void onSync(Duration took, boolean ok, boolean fetched) {
    sync.record(took);
    if (fetched) {
      Counter.builder("pushgate.cache.fetches")
          .description("Cache syncs that fetched because upstream's refs had changed")
          .register(registry).increment();
    }
    if (!ok) {
      Counter.builder("pushgate.cache.sync.failures").register(registry).increment();
    }
  }

  @Override
  public void onWriteTokenMint(String outcome) {
    writeTokenMints(outcome).increment();
  }

  /** Counts the approval desk's questions by how they end, around the real log. */
  ApprovalLog counting(ApprovalLog log) {
    return new ApprovalLog() {
      @Override
      public void asked(Question q) {
        Counter.builder("pushgate.approvals.asked").tag("action", q.action())
            .register(registry).increment();
        log.asked(q);
      }

      @Override
      public void ended(Question q, Answer a) {
        Counter.builder("pushgate.approvals.ended").tag("outcome", a.outcome().id())
            .register(registry).increment();
        log.ended(q, a);
      }
    };
  }

  /** Counts the App API's calls, tokens minted and revoked; keeps the rate limit left. */
  Interceptor githubCalls() {
    return github.interceptor();
  }
}
