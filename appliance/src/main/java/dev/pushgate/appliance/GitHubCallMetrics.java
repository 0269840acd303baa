package dev.pushgate.appliance;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import okhttp3.Interceptor;
import okhttp3.Request;
import okhttp3.Response;

/**
 * The App API's share of {@link Metrics}: calls by route and status, tokens minted and revoked,
 * the rate limit left. Counted by an interceptor on the broker's client, which never reads a
 * header that carries a credential; a mint's body (its permissions) is read to tell read from
 * write.
 */
final class GitHubCallMetrics {
  /** The routes of the App API, as {@link #operation} names them. */
  private static final List<String> ROUTES =
      List.of("app", "installation", "issue-token", "revoke", "other");
  private static final List<String> STATUS_CLASSES =
      List.of("2xx", "3xx", "4xx", "5xx", "network");
  /** A permissions body is a few hundred bytes; anything larger is not read. */
  private static final long MAX_MINT_BODY = 64 * 1024;

  private final MeterRegistry registry;
  private final AtomicLong rateLimitRemaining = new AtomicLong(-1);

  GitHubCallMetrics(MeterRegistry registry) {
    this.registry = registry;
    Gauge.builder("pushgate.github.rate.limit.remaining", rateLimitRemaining, AtomicLong::get)
        .description("x-ratelimit-remaining of the last GitHub API answer (-1: none yet)")
        .register(registry);
    for (String event : List.of("issued", "issue-failed", "revoked", "revoke-failed")) {
      tokens(event);
    }
    for (String kind : List.of("read", "write")) {
      for (String outcome : List.of("ok", "failed")) {
        mints(kind, outcome);
      }
    }
    for (String outcome : List.of("ok", "failed")) {
      revocations(outcome);
    }
    for (String route : ROUTES) {
      for (String status : STATUS_CLASSES) {
        requests(route, status);
      }
    }
  }

  Interceptor interceptor() {
    return chain -> {
      Request req = chain.request();
      String op = operation(req);
      String kind = op.equals("issue-token") ? mintKind(req) : null;
      Response rsp;
      try {
        rsp = chain.proceed(req);
      } catch (IOException e) {
        calls(op, "network").increment();
        requests(op, "network").increment();
        count(op, kind, false);
        throw e;
      }
      calls(op, String.valueOf(rsp.code())).increment();
      int statusClass = rsp.code() / 100;
      requests(op, statusClass >= 2 && statusClass <= 5 ? statusClass + "xx" : "other")
          .increment();
      String remaining = rsp.header("x-ratelimit-remaining");
      if (remaining != null && remaining.matches("[0-9]{1,9}")) {
        rateLimitRemaining.set(Long.parseLong(remaining));
      }
      count(op, kind,
          rsp.code() == 201 || rsp.code() == 204 || op.equals("revoke") && rsp.code() == 401);
      return rsp;
    };
  }

  private void count(String op, String kind, boolean ok) {
    switch (op) {
      case "issue-token" -> {
        tokens(ok ? "issued" : "issue-failed").increment();
        mints(kind, ok ? "ok" : "failed").increment();
      }
      case "revoke" -> {
        tokens(ok ? "revoked" : "revoke-failed").increment();
        revocations(ok ? "ok" : "failed").increment();
      }
      default -> { }
    }
  }

  /** {@code write} when the mint asks for contents:write, else {@code read}. */
  private static String mintKind(Request req) {
    try {
      if (req.body() == null || req.body().isOneShot()
          || req.body().contentLength() > MAX_MINT_BODY) {
        return "read";
      }
      okio.Buffer buffer = new okio.Buffer();
      req.body().writeTo(buffer);
      return buffer.readUtf8().replace(" ", "").contains("\"contents\":\"write\"")
          ? "write" : "read";
    } catch (IOException e) {
      return "read";
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

  private Counter calls(String op, String status) {
    return Counter.builder("pushgate.github.calls").tag("operation", op).tag("status", status)
        .register(registry);
  }

  private Counter tokens(String event) {
    return Counter.builder("pushgate.tokens").tag("event", event).register(registry);
  }

  private Counter mints(String kind, String outcome) {
    return Counter.builder("pushgate.token.mints")
        .description("Installation tokens asked of the App API, by kind (read, write) and outcome")
        .tag("kind", kind).tag("outcome", outcome).register(registry);
  }

  private Counter revocations(String outcome) {
    return Counter.builder("pushgate.token.revocations")
        .description("Installation tokens revoked at the App API, by outcome")
        .tag("outcome", outcome).register(registry);
  }

  private Counter requests(String route, String status) {
    return Counter.builder("pushgate.github.requests")
        .description("App API requests by route class and status class (network: no answer)")
        .tag("route", route).tag("status", status).register(registry);
  }
}
