package dev.pushgate.gateway;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How many write tokens each run may have minted: a bucket of {@code perMinute} per run, refilled
 * at that rate. Every mint and its revocation are two calls against the GitHub App's rate limit,
 * which every run and every host of the App share; one run pushing in a loop must not spend it.
 */
public final class MintBudget {
  private static final class Bucket {
    double tokens;
    long refilledAtNanos;

    Bucket(double tokens, long now) {
      this.tokens = tokens;
      this.refilledAtNanos = now;
    }
  }

  /** Runs tracked before the idle ones are forgotten. */
  private static final int FORGET_ABOVE = 256;

  private final int perMinute;
  private final Clock clock;
  private final Map<String, Bucket> buckets = new ConcurrentHashMap<>();

  public MintBudget(int perMinute, Clock clock) {
    if (perMinute < 1) {
      throw new IllegalArgumentException("write tokens per minute must be at least 1: " + perMinute);
    }
    this.perMinute = perMinute;
    this.clock = clock;
  }

  /**
   * Takes one mint from {@code runId}'s budget.
   *
   * @throws UpstreamException for the person pushing, saying when the run may mint again
   */
  public void spend(String runId) throws UpstreamException {
    long now = nanos();
    if (buckets.size() > FORGET_ABOVE) {
      forgetIdle();
    }
    Bucket b = buckets.computeIfAbsent(runId, k -> new Bucket(perMinute, now));
    synchronized (b) {
      double perNano = perMinute / 60e9;
      b.tokens = Math.min(perMinute, b.tokens + (now - b.refilledAtNanos) * perNano);
      b.refilledAtNanos = now;
      if (b.tokens < 1) {
        long retryIn = Duration.ofNanos((long) Math.ceil((1 - b.tokens) / perNano)).toSeconds();
        throw UpstreamException.refusal("this run has pushed more than " + perMinute
            + " times in a minute, the most one run may; nothing was pushed, try again in "
            + Math.max(1, retryIn) + " s");
      }
      b.tokens -= 1;
    }
  }

  /** Forgets runs whose budget is full again: they have minted nothing for a minute. */
  void forgetIdle() {
    long now = nanos();
    buckets.entrySet().removeIf(e -> {
      synchronized (e.getValue()) {
        return now - e.getValue().refilledAtNanos > 60_000_000_000L;
      }
    });
  }

  private long nanos() {
    java.time.Instant t = clock.instant();
    return t.getEpochSecond() * 1_000_000_000L + t.getNano();
  }
}
