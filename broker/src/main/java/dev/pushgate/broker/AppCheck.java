package dev.pushgate.broker;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import okhttp3.Interceptor;

/**
 * The readiness check of the GitHub App (or the local forge standing in for it): whether the
 * broker can mint. Decided in the background every {@code interval}, never per request, so that
 * {@code /readyz} costs the App's rate limit nothing: when an App API call succeeded since the
 * last check (a token was minted or revoked, an installation looked up) that is proof enough;
 * otherwise one {@code GET /app} with the App's JWT is sent.
 */
public final class AppCheck implements Supplier<String>, AutoCloseable {
  private volatile GitHubApp broker;
  private final AtomicBoolean answeredSinceCheck = new AtomicBoolean();
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "pushgate-readiness-app");
    t.setDaemon(true);
    return t;
  });
  private volatile String problem = "not checked yet";

  /** Observes the broker's calls: put on the App API client. Reads no header. */
  public Interceptor observer() {
    return chain -> {
      okhttp3.Response rsp = chain.proceed(chain.request());
      if (rsp.isSuccessful()) {
        answeredSinceCheck.set(true);
      }
      return rsp;
    };
  }

  /**
   * Checks {@code broker} now, on the caller's thread, then every {@code interval}: the start's
   * "ready" line is written after the first answer, so that it and {@code /readyz} agree.
   */
  public void start(GitHubApp broker, Duration interval) {
    this.broker = broker;
    check();
    timer.scheduleWithFixedDelay(this::check, interval.toMillis(), interval.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  private void check() {
    if (answeredSinceCheck.getAndSet(false)) {
      problem = null;
      return;
    }
    try {
      broker.identity();
      answeredSinceCheck.set(false); // our own call is no news for the next check
      problem = null;
    } catch (BrokerException | RuntimeException e) {
      problem = "the App API at " + broker.config().apiBaseUrl() + " did not answer GET /app: "
          + e.getMessage();
    }
  }

  @Override
  public String get() {
    return problem;
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
