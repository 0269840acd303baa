package dev.pushgate.gateway;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How many requests of one run may be in flight at once. One run that floods the appliance
 * (parallel pushes, held questions, slow bodies) then holds at most this many of the threads and
 * connections every run shares; what goes past the limit is refused at once. A bound over all
 * runs together keeps a group of runs from taking everything between them: a run's share shrinks
 * as the bound fills, all of its own below half of it, a busy share up to the last slots, and in
 * those last slots none but a first one, so that a run holding none gets one unless many other
 * runs hold one each (the count is {@link #runsToFill}).
 */
public final class RunSlots {
  private final int perRun;
  private final int total;
  private final int busyShare;
  private final int firstOnly;
  private final Map<String, Integer> inFlight = new ConcurrentHashMap<>();
  /** Slots taken by every run together; changed only under this object's lock. */
  private int taken;

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
    if (total < perRun || busyShare < 1 || busyShare > perRun) {
      throw new IllegalArgumentException("slots over all runs (" + total + ") must be at least a"
          + " run's (" + perRun + "), and a run's share when busy (" + busyShare
          + ") between 1 and a run's");
    }
    if (firstOnly < 0 || firstOnly > total / 2) {
      throw new IllegalArgumentException("the slots kept for runs holding none (" + firstOnly
          + ") must be between 0 and half of every run's (" + total + ")");
    }
    this.perRun = perRun;
    this.total = total;
    this.busyShare = busyShare;
    this.firstOnly = firstOnly;
  }

  public int perRun() {
    return perRun;
  }

  /** A slot for one request of {@code runId}; empty when the run already uses its share. */
  public Optional<Slot> tryTake(String runId) {
    synchronized (this) {
      int held = inFlight(runId);
      if (held >= shareNow()) {
        return Optional.empty();
      }
      taken++;
      inFlight.put(runId, held + 1);
      return Optional.of(new Slot(runId));
    }
  }

  /**
   * How many slots one run may hold now: all of its own while fewer than half of {@link #total}
   * are taken, then {@code busyShare}, then one (its first) in the last {@code firstOnly}, and
   * none once {@code total} are. It only shrinks as more are taken: a slot is never taken past
   * what the share was when it was taken, which is what {@link #runsToFill} counts on.
   */
  private int shareNow() {
    return taken >= total ? 0 : taken >= total - firstOnly ? 1
        : taken >= total / 2 ? busyShare : perRun;
  }

  /**
   * The fewest runs that, holding one slot or more each, take every slot (of a bounded {@code
   * total}): at least this many other runs hold one whenever a run holding none is refused one,
   * since its share is one until every slot is taken. Order the slots held at some moment by when
   * they were taken: when the {@code j}th was taken, at least {@code j - 1} were (those older ones
   * are still held), and as its run's {@code m}th (its older ones still held) it needed a share of
   * {@code m} then. So when all are taken, the last {@code firstOnly} are the only slots of as
   * many runs (a run's later slots are newer still, and so not first ones); before them, a run
   * holding more than {@code busyShare} has all of its slots in the first half, at most {@code
   * perRun}; the others hold {@code busyShare} at most. The fewest runs is then the best split of
   * the slots before the last {@code firstOnly} between those two kinds, plus {@code firstOnly}.
   */
  public int runsToFill() {
    int half = total / 2;
    int beforeLast = total - firstOnly;
    int fewest = Integer.MAX_VALUE;
    for (int many = 0; many <= ceilDiv(half, perRun); many++) {
      int inFirstHalf = Math.min(half, many * perRun);
      fewest = Math.min(fewest, many + ceilDiv(beforeLast - inFirstHalf, busyShare));
    }
    return fewest + firstOnly;
  }

  private static int ceilDiv(int a, int b) {
    return (a + b - 1) / b;
  }

  /** Whether {@code runId} would be refused because every run together holds much, not by itself. */
  public synchronized boolean busy(String runId) {
    return inFlight(runId) < perRun && inFlight(runId) >= shareNow();
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
      synchronized (RunSlots.this) {
        taken--;
        inFlight.computeIfPresent(runId, (id, n) -> n <= 1 ? null : n - 1);
        RunSlots.this.notifyAll(); // a caller of take may be waiting for this slot
      }
    }
  }
}
