package dev.pushgate.testkit;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Waiting for something to happen, with a deadline: the one place the tests and the bench let
 * time pass. A wait polls its probe until the probe reports what was awaited, and fails past the
 * deadline with a message naming what was awaited and the last value seen. A deadline is a bound
 * on a broken build, never the time something is expected to take: on a busy machine a wait
 * simply lasts longer.
 */
public final class Wait {
  /** The first pause between two polls; later pauses double up to {@link #MAX_POLL}. */
  static final Duration FIRST_POLL = Duration.ofMillis(10);
  /** The longest pause between two polls. */
  static final Duration MAX_POLL = Duration.ofMillis(200);

  /** Reads what is being waited for; it may fail, and its failure ends the wait. */
  @FunctionalInterface
  public interface Probe<T> {
    T read() throws Exception;
  }

  /** Whether what is being waited for has happened. */
  @FunctionalInterface
  public interface Condition {
    boolean holds() throws Exception;
  }

  private final Duration within;
  private final Duration every;

  private Wait(Duration within, Duration every) {
    if (within.isNegative() || every.isNegative() || every.isZero()) {
      throw new IllegalArgumentException("a wait needs a deadline and a positive poll interval: "
          + within + ", " + every);
    }
    this.within = within;
    this.every = every;
  }

  /** A wait of at most {@code within}, polling at a fixed interval (the bench's precise timing). */
  public static Wait atMost(Duration within, Duration every) {
    return new Wait(within, every);
  }

  /** Waits until {@code condition} holds. */
  public static void until(Duration within, String what, Condition condition) throws Exception {
    forValue(within, what, condition::holds, Boolean::booleanValue);
  }

  /** Waits until {@code probe} has a value, and returns it. */
  public static <T> T forPresent(Duration within, String what, Probe<Optional<T>> probe)
      throws Exception {
    return forValue(within, what, probe, Optional::isPresent).orElseThrow();
  }

  /** Waits until {@code probe} reads a value that is {@code done}, and returns that value. */
  public static <T> T forValue(Duration within, String what, Probe<T> probe,
      Predicate<? super T> done) throws Exception {
    return new Wait(within, FIRST_POLL).poll(what, probe, done, true);
  }

  /** This wait's {@link #until(Duration, String, Condition)}. */
  public void until(String what, Condition condition) throws Exception {
    poll(what, condition::holds, Boolean::booleanValue, false);
  }

  private <T> T poll(String what, Probe<T> probe, Predicate<? super T> done, boolean backOff)
      throws Exception {
    long start = System.nanoTime();
    long deadline = start + within.toNanos();
    long pause = every.toNanos();
    while (true) {
      T value = probe.read();
      if (done.test(value)) {
        return value;
      }
      long now = System.nanoTime();
      if (now - deadline >= 0) {
        throw new AssertionError("waited " + seconds(now - start) + " for " + what
            + "; last seen: " + value);
      }
      Thread.sleep(Math.max(1, Math.min(pause, deadline - now) / 1_000_000));
      if (backOff) {
        pause = Math.min(pause * 2, MAX_POLL.toNanos());
      }
    }
  }

  private static String seconds(long nanos) {
    return String.format(java.util.Locale.ROOT, "%.1f s", nanos / 1e9);
  }
}
