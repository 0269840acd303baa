package dev.pushgate.gateway;

import java.util.HashMap;
import java.util.Map;

/**
 * A pool every run shares, in any unit (a listener's call slots, the bytes it buffers), and how
 * much of it one run may hold: a run's share shrinks as the pool fills, so that one run or a few
 * never take all of it. All of a run's own bound ({@code perRun}) while the take stays in the
 * first half of the pool; {@code busyShare} while it stays before the last {@code firstOnly}
 * units; {@code lastShare} in those (for slots one, a run's first); nothing past the pool. A
 * take is judged by where its last unit would lie, so a take of many units (a body's bytes) is
 * held to the share of the part of the pool it reaches, as a take of one is. A run holding none
 * is refused a take of up to {@code lastShare} only once the pool is full, which takes at least
 * {@link #runsToFill} runs holding some.
 */
public final class RunShares {
  /** What became of a take. */
  public enum Take {
    TAKEN,
    /** Past the run's own bound, whatever the other runs hold. */
    OWN_BOUND,
    /** Past the run's share while the pool is this full: other runs hold much of it. */
    SHARE,
    /** Past what the pool has left. */
    FULL
  }

  private final long perRun;
  private final long total;
  private final long busyShare;
  private final long firstOnly;
  private final long lastShare;
  private final Map<String, Long> held = new HashMap<>();
  private long taken;

  /**
   * At most {@code perRun} per run and {@code total} over all runs; once half of {@code total}
   * is taken, a run may hold {@code busyShare}, and once all but {@code firstOnly} are,
   * {@code lastShare}.
   */
  public RunShares(long perRun, long total, long busyShare, long firstOnly, long lastShare) {
    if (perRun < 1) {
      throw new IllegalArgumentException("a run needs a share of at least one, not " + perRun);
    }
    if (total < perRun || busyShare < 1 || busyShare > perRun) {
      throw new IllegalArgumentException("the pool (" + total + ") must be at least a run's"
          + " share (" + perRun + "), and a run's share when busy (" + busyShare
          + ") between 1 and a run's");
    }
    if (firstOnly < 0 || firstOnly > total / 2 || lastShare < 1 || lastShare > busyShare) {
      throw new IllegalArgumentException("the part kept for runs holding little (" + firstOnly
          + ") must be between 0 and half of the pool (" + total + "), and their share ("
          + lastShare + ") between 1 and the busy share (" + busyShare + ")");
    }
    this.perRun = perRun;
    this.total = total;
    this.busyShare = busyShare;
    this.firstOnly = firstOnly;
    this.lastShare = lastShare;
  }

  public long perRun() {
    return perRun;
  }

  public long total() {
    return total;
  }

  /** Takes {@code n} units for {@code runId}; anything but {@link Take#TAKEN} takes nothing. */
  public synchronized Take take(String runId, long n) {
    Take t = wouldTake(runId, n);
    if (t == Take.TAKEN) {
      taken += n;
      held.merge(runId, n, Long::sum);
    }
    return t;
  }

  /** What {@link #take} would do now, taking nothing. */
  public synchronized Take wouldTake(String runId, long n) {
    long has = held(runId);
    if (has + n > perRun) {
      return Take.OWN_BOUND;
    }
    if (taken + n > total) {
      return Take.FULL;
    }
    return n > 0 && has + n > shareAt(taken + n - 1) ? Take.SHARE : Take.TAKEN;
  }

  /** Gives back {@code n} units {@code runId} took (never more than it holds). */
  public synchronized void give(String runId, long n) {
    long back = Math.min(n, held(runId));
    taken -= back;
    held.computeIfPresent(runId, (id, h) -> h <= back ? null : h - back);
  }

  /** Units {@code runId} holds now. */
  public synchronized long held(String runId) {
    return held.getOrDefault(runId, 0L);
  }

  /** Units every run holds now. */
  public synchronized long taken() {
    return taken;
  }

  /**
   * How much one run may hold once a take reaches unit {@code position} (from 0): the share
   * only shrinks as the pool fills, which is what {@link #runsToFill} counts on.
   */
  private long shareAt(long position) {
    return position >= total ? 0 : position >= total - firstOnly ? lastShare
        : position >= total / 2 ? busyShare : perRun;
  }

  /**
   * The fewest runs that, holding some each, take the whole pool: at least this many other runs
   * hold some whenever a run holding none is refused a take of up to {@code lastShare}. Lay the
   * takes held at some moment end to end in the order they were taken: each one's end lies no
   * later there than it did in the pool when it was taken (everything older was still held then),
   * and the share only shrinks, so after its take its run held no more than the share at that
   * end. A run's last take then bounds it: a run holding more than {@code busyShare} has all of
   * its takes in the first half (at most {@code perRun}), one holding more than {@code lastShare}
   * all before the last {@code firstOnly}. So those last units are held by runs holding {@code
   * lastShare} at most, the rest of the second half by runs holding {@code busyShare} at most, and
   * the fewest runs is the best split of the first half, plus those.
   */
  public long runsToFill() {
    long half = total / 2;
    long last = ceilDiv(firstOnly, lastShare);
    // What the runs of the last part may hold before it (for slots, with a share of one: none).
    long beforeLast = Math.max(0, total - firstOnly - (last * lastShare - firstOnly));
    long fewest = Long.MAX_VALUE;
    for (long many = 0; many <= ceilDiv(half, perRun); many++) {
      long inFirstHalf = Math.min(half, many * perRun);
      fewest = Math.min(fewest, many + ceilDiv(Math.max(0, beforeLast - inFirstHalf), busyShare));
    }
    return fewest + last;
  }

  private static long ceilDiv(long a, long b) {
    return (a + b - 1) / b;
  }
}
