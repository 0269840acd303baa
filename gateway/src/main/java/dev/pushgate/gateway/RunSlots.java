package dev.pushgate.gateway;

import java.util.Optional;

/**
 * How many requests of one run may be in flight at once. One run that floods the appliance
 * (parallel pushes, held questions, slow bodies) then holds at most this many of the threads and
 * connections every run shares; what goes past the limit is refused at once. A bound over all
 * runs together keeps a group of runs from taking everything between them: a run's share shrinks
 * as the bound fills ({@link RunShares}, in slots: all of its own below half of it, a busy share
 * up to the last slots, and in those last slots none but a first one), so that a run holding none
 * gets one unless many other runs hold one each (the count is {@link #runsToFill}).
 */
public final class RunSlots {
  /** Changed only under this object's lock, so that a waiting {@link #take} is woken. */
  private final RunShares shares;

  /** At most {@code perRun} slots per run, and no bound over all runs together. */
  public RunSlots(int perRun) {
    this(perRun, Integer.MAX_VALUE, perRun, 0);
  }

  /**
   * At most {@code perRun} slots per run and {@code total} over all runs; once half of {@code
   * total} is taken, a run that already holds {@code busyShare} gets no more, and once all but
   * {@code firstOnly} are taken, a run that holds any gets no more: those are kept for runs that
   * hold none.
   */
  public RunSlots(int perRun, int total, int busyShare, int firstOnly) {
    if (perRun < 1) {
      throw new IllegalArgumentException("a run needs at least one slot, not " + perRun);
    }
    this.shares = new RunShares(perRun, total, busyShare, firstOnly, 1);
  }

  public int perRun() {
    return (int) shares.perRun();
  }

  /** A slot for one request of {@code runId}; empty when the run already uses its share. */
  public synchronized Optional<Slot> tryTake(String runId) {
    return shares.take(runId, 1) == RunShares.Take.TAKEN ? Optional.of(new Slot(runId))
        : Optional.empty();
  }

  /**
   * The fewest runs that, holding one slot or more each, take every slot (of a bounded {@code
   * total}): at least this many other runs hold one whenever a run holding none is refused one,
   * since its share is one until every slot is taken ({@link RunShares#runsToFill}).
   */
  public int runsToFill() {
    return (int) shares.runsToFill();
  }

  /** Whether {@code runId} would be refused because every run together holds much, not by itself. */
  public synchronized boolean busy(String runId) {
    RunShares.Take t = shares.wouldTake(runId, 1);
    return t == RunShares.Take.SHARE || t == RunShares.Take.FULL;
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
    return (int) shares.held(runId);
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
      synchronized (RunSlots.this) {
        shares.give(runId, 1);
        RunSlots.this.notifyAll(); // a caller of take may be waiting for this slot
      }
    }
  }
}
