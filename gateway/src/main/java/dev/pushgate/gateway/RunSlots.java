package dev.pushgate.gateway;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How many requests of one run may be in flight at once. One run that floods the appliance
 * (parallel pushes, held questions, slow bodies) then holds at most this many of the threads and
 * connections every run shares; what goes past the limit is refused at once.
 */
public final class RunSlots {
  private final int perRun;
  private final Map<String, Integer> inFlight = new ConcurrentHashMap<>();

  public RunSlots(int perRun) {
    if (perRun < 1) {
      throw new IllegalArgumentException("a run needs at least one slot, not " + perRun);
    }
    this.perRun = perRun;
  }

  public int perRun() {
    return perRun;
  }

  /** A slot for one request of {@code runId}; empty when the run already uses all of its own. */
  public Optional<Slot> tryTake(String runId) {
    boolean[] taken = {false};
    inFlight.compute(runId, (id, n) -> {
      int now = n == null ? 0 : n;
      if (now >= perRun) {
        return now;
      }
      taken[0] = true;
      return now + 1;
    });
    return taken[0] ? Optional.of(new Slot(runId)) : Optional.empty();
  }

  /**
   * A slot for {@code runId}, waiting up to {@code maxWait} for one of its own to be released;
   * empty when none was in time.
   *
   * @param stillWanted checked while waiting: it throws when the caller no longer waits (its
   *     client has gone, the appliance stops), and the wait ends with it
   */
  public Optional<Slot> take(String runId, java.time.Duration maxWait, StillWanted stillWanted)
      throws java.io.IOException, InterruptedException {
    long end = System.nanoTime() + maxWait.toNanos();
    synchronized (this) {
      while (true) {
        Optional<Slot> slot = tryTake(runId);
        if (slot.isPresent()) {
          return slot;
        }
        stillWanted.check();
        long left = end - System.nanoTime();
        if (left <= 0) {
          return Optional.empty();
        }
        // Woken when a slot is released; the slice bounds how late a gone client is noticed.
        wait(Math.max(1, Math.min(java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(left),
            STILL_WANTED_EVERY_MS)));
      }
    }
  }

  /** How often a waiting caller is asked whether it still waits. */
  private static final long STILL_WANTED_EVERY_MS = 200;

  /** Whether a waiting caller still waits; throws when not. */
  @FunctionalInterface
  public interface StillWanted {
    void check() throws java.io.IOException;
  }

  /** Requests of {@code runId} in flight now. */
  public int inFlight(String runId) {
    return inFlight.getOrDefault(runId, 0);
  }

  /** One request's slot; closing it again does nothing. */
  public final class Slot implements AutoCloseable {
    private final String runId;
    private boolean released;

    private Slot(String runId) {
      this.runId = runId;
    }

    @Override
    public synchronized void close() {
      if (released) {
        return;
      }
      released = true;
      inFlight.computeIfPresent(runId, (id, n) -> n <= 1 ? null : n - 1);
      synchronized (RunSlots.this) {
        RunSlots.this.notifyAll(); // a caller of take may be waiting for this slot
      }
    }
  }
}
