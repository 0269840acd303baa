package dev.pushgate.appliance;

import dev.pushgate.appliance.approvals.Answer;
import dev.pushgate.appliance.approvals.ApprovalLog;
import dev.pushgate.appliance.approvals.Question;
import dev.pushgate.gateway.PushMetrics;
import dev.pushgate.gateway.PushRecord;
import dev.pushgate.gateway.RefusalCode;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import okhttp3.Interceptor;
import okhttp3.Request;
import okhttp3.Response;

/**
 * The appliance's metrics, scraped in Prometheus format at {@code GET /metrics}: push decisions,
 * forward and sync latency, approvals, tokens issued and revoked, GitHub API calls and the rate
 * limit left, live runs.
 */
final class Metrics implements PushMetrics {
  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Timer forward;
  private final Timer sync;
  private final AtomicLong rateLimitRemaining = new AtomicLong(-1);

  Metrics() {
    forward = Timer.builder("pushgate.forward").description("Forwarding a push upstream")
        .publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(5))
        .maximumExpectedValue(Duration.ofMinutes(5)).register(registry);
    sync = Timer.builder("pushgate.cache.sync").description("Syncing a cache from upstream")
        .publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(1))
        .maximumExpectedValue(Duration.ofMinutes(5)).register(registry);
    Gauge.builder("pushgate.github.rate.limit.remaining", rateLimitRemaining, AtomicLong::get)
        .description("x-ratelimit-remaining of the last GitHub API answer (-1: none yet)")
        .register(registry);
  }

  String scrape() {
    return registry.scrape();
  }

  void gauge(String name, String description, Supplier<Number> value) {
    Gauge.builder(name, value).description(description).register(registry);
  }

  @Override
  public void onDecision(String kind, PushRecord.Decision decision, RefusalCode code) {
    Counter.builder("pushgate.push.decisions").description("Ref updates decided by the gateway")
        .tag("kind", kind == null ? "none" : kind).tag("decision", decision.id())
        .tag("code", code == null ? "none" : code.name()).register(registry).increment();
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
    Counter.builder("pushgate.write.token.mints")
        .description("Write tokens the gateway asked for, by outcome (rate-limited: not asked)")
        .tag("outcome", outcome).register(registry).increment();
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

  /**
   * Counts GitHub API calls by operation and status, tokens issued and revoked, and keeps the
   * rate limit left. Never reads a header that carries a credential.
   */
  Interceptor githubCalls() {
    return chain -> {
      Request req = chain.request();
      String op = operation(req);
      Response rsp;
      try {
        rsp = chain.proceed(req);
      } catch (java.io.IOException e) {
        Counter.builder("pushgate.github.calls").tag("operation", op).tag("status", "network")
            .register(registry).increment();
        count(op, false);
        throw e;
      }
      Counter.builder("pushgate.github.calls").tag("operation", op)
          .tag("status", String.valueOf(rsp.code())).register(registry).increment();
      String remaining = rsp.header("x-ratelimit-remaining");
      if (remaining != null && remaining.matches("[0-9]{1,9}")) {
        rateLimitRemaining.set(Long.parseLong(remaining));
      }
      count(op, rsp.code() == 201 || rsp.code() == 204 || op.equals("revoke") && rsp.code() == 401);
      return rsp;
    };
  }

  private void count(String op, boolean ok) {
    switch (op) {
      case "issue-token" -> Counter.builder("pushgate.tokens").tag("event", ok ? "issued" : "issue-failed")
          .register(registry).increment();
      case "revoke" -> Counter.builder("pushgate.tokens").tag("event", ok ? "revoked" : "revoke-failed")
          .register(registry).increment();
      default -> { }
    }
  }

  private static String operation(Request req) {
    String path = req.url().encodedPath();
    if (path.endsWith("/access_tokens")) {
      return "issue-token";
    }
    if (path.endsWith("/installation/token")) {
      return "revoke";
    }
    if (path.endsWith("/installation")) {
      return "installation";
    }
    if (path.endsWith("/app")) {
      return "app";
    }
    return "other";
  }
}
