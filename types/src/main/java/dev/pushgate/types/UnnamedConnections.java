package dev.pushgate.types;

import java.time.Duration;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The connections a loopback listener shared by every run holds before they have said whose they
 * are: the API boundary's before the PROXY header names a run, the shared egress proxy's before a
 * request shows a run's login. Anything on the host's loopback can open them, so they are
 * bounded apart from every run's own: at most {@link #MAX} at once across the listener, and each
 * must say whose it is within {@link #DEADLINE} of its accept however its bytes are paced (an
 * idle timeout restarts with each byte, so a header trickled one byte at a time would hold its
 * descriptor for ever). Without this a few thousand such connections exhaust the appliance's
 * descriptors and every run's calls, fetches and pushes fail. Over the bound the oldest of them
 * is closed to make room for the one just accepted: a run's own connection names its run in its
 * first bytes, so it is never the oldest for long, where a process holding the bound full with
 * idle connections had every run's next one closed at accept (attack of 2026-12-07); to keep
 * runs out now it must open connections faster than a run's name themselves. The listener's
 * code keeps no count of its own: one rule, here.
 */
public final class UnnamedConnections {
  /** How long a connection has, from its accept, to name its run. */
  public static final Duration DEADLINE = Duration.ofSeconds(5);
  /**
   * The most unnamed connections one listener holds at once: far more than runs open at once
   * (a run's proxy names its run in the first bytes it writes), far fewer than the descriptors
   * the appliance's runs need.
   */
  public static final int MAX = 256;

  private final int max;
  private final AtomicInteger open = new AtomicInteger();
  /** Each counted connection, by the object its listener knows it by. */
  private final Map<Object, Unnamed> waiting = new ConcurrentHashMap<>();
  /** The counted connections, oldest first ({@link Unnamed} leaves when it stops counting). */
  private final Queue<Unnamed> byAge = new ConcurrentLinkedQueue<>();
  /** At most one refusal line per 10 s, with a count of those it stands for. */
  private final LogLineRate refusals = new LogLineRate(Duration.ofSeconds(10));

  public UnnamedConnections() {
    this(MAX);
  }

  UnnamedConnections(int max) {
    this.max = max;
  }

  /** How a listener runs a task after a delay (its own scheduler). */
  @FunctionalInterface
  public interface Timer {
    void after(Duration delay, Runnable task);
  }

  /** What {@link #admit} did with a connection just accepted. */
  public enum Admission {
    /** Counted, with room to spare. */
    COUNTED,
    /** Counted, after the oldest unnamed connection was closed to make room for it. */
    MADE_ROOM,
    /** Not counted: no room could be made; the caller closes it at once. */
    REFUSED
  }

  /**
   * Counts {@code connection}, just accepted, and has {@code timer} close it ({@code close}) at
   * {@link #DEADLINE} unless it has {@link #named} its run by then. When {@link #MAX} are unnamed
   * already, the oldest of them is closed first.
   */
  public Admission admit(Object connection, Runnable close, Timer timer) {
    boolean madeRoom = false;
    Unnamed counted;
    while ((counted = admit(close)) == null) {
      if (!closeOldest()) {
        return Admission.REFUSED;
      }
      madeRoom = true;
    }
    Unnamed admitted = counted;
    waiting.put(connection, admitted);
    byAge.add(admitted);
    timer.after(DEADLINE, () -> {
      waiting.remove(connection, admitted);
      admitted.expire();
    });
    return madeRoom ? Admission.MADE_ROOM : Admission.COUNTED;
  }

  /** Closes the oldest connection still unnamed; false when there is none. */
  private boolean closeOldest() {
    for (Unnamed oldest = byAge.poll(); oldest != null; oldest = byAge.poll()) {
      if (oldest.expire()) {
        waiting.values().remove(oldest);
        return true;
      }
    }
    return false;
  }

  /**
   * {@code connection} has said whose it is (or been refused for what it said): no longer
   * counted, no deadline. Nothing when it was not counted.
   */
  public void named(Object connection) {
    Unnamed counted = waiting.remove(connection);
    if (counted != null) {
      counted.named();
    }
  }

  Unnamed admit(Runnable close) {
    while (true) {
      int now = open.get();
      if (now >= max) {
        return null;
      }
      if (open.compareAndSet(now, now + 1)) {
        return new Unnamed(close);
      }
    }
  }

  /**
   * The line a listener logs when it has closed {@code closed} unnamed connections, the oldest,
   * to make room for new ones, the last accepted from {@code peer}: one wording for every
   * listener.
   */
  public static String closedToMakeRoom(String listener, long closed, Object peer) {
    return listener + ": closed " + closed + " connection(s) that had not named a run, the"
        + " oldest, to make room for new ones, the last accepted from " + peer + ": " + MAX
        + " connections had not named a run yet (a run's own names it at once; the rest are"
        + " closed " + DEADLINE.toSeconds() + " s after their accept)";
  }

  /** Unnamed connections held now. */
  public int open() {
    return open.get();
  }

  /**
   * Whether a refusal should be logged now: the first, then one per ten seconds, so that a
   * client refused hundreds of times a second writes no more. Returns how many refusals the
   * line stands for (this one and those left unlogged since the last line), or 0 for none.
   */
  public long refusalToLog() {
    return refusals.event();
  }

  /** One connection until it has named its run, ended, or met its deadline: counted once. */
  final class Unnamed {
    private final Runnable close;
    private final AtomicBoolean done = new AtomicBoolean();

    private Unnamed(Runnable close) {
      this.close = close;
    }

    void named() {
      if (done.compareAndSet(false, true)) {
        open.decrementAndGet();
        byAge.remove(this);
      }
    }

    /** Its deadline, or room made: closed unless it has named its run by now; whether it was. */
    boolean expire() {
      if (done.compareAndSet(false, true)) {
        open.decrementAndGet();
        byAge.remove(this);
        close.run();
        return true;
      }
      return false;
    }
  }
}
