package dev.pushgate.gateway;

import java.io.IOException;
import java.time.Duration;
import java.util.function.LongSupplier;
import org.eclipse.jgit.lib.ObjectReader;

/**
 * What deciding a run's reach ({@link Reach}) may spend: each commit, tree or tag it reads from
 * the cache is one step, and the decision stops at the first step past its bound. To prove an id
 * is not reached without pack bitmaps takes the whole history's commits and trees (minutes of
 * CPU on the Linux kernel's), and an id the cache holds that nothing reaches is one refused push
 * away, so every decision is bounded: a push's by its {@link JudgementBudget} (time, its client
 * gone, the appliance stopping), a fetch's by {@link #FETCH_OBJECTS} and {@link #FETCH_TIME}.
 */
final class ReachBound {
  /**
   * Objects a fetch's decision may read: every commit and tree of most histories below the size
   * from which a compaction builds bitmaps ({@link CacheCompaction#BITMAPS_FROM_PACK_BYTES}),
   * whose blobs take most of the bytes; a small part of a large history without bitmaps (the
   * Linux kernel's has about a million commits and several million trees). One past it gets its
   * bitmaps from the compaction that its refusal asks for.
   */
  static final long FETCH_OBJECTS = 250_000;
  /** A fetch's decision's time, however few objects it read (a loaded machine, a slow disk). */
  static final Duration FETCH_TIME = Duration.ofSeconds(10);
  /**
   * The JVM's system property that caps the objects of every decision, a push's too (whose
   * budget is otherwise its time alone): {@code -Dpushgate.reach.max-objects=N}. For tests that
   * go past the bound on a small history, and for an operator who wants a tighter one.
   */
  static final String MAX_OBJECTS_PROPERTY = "pushgate.reach.max-objects";

  /** One step of a decision: returns while it may go on. */
  @FunctionalInterface
  interface Check {
    void check() throws IOException;
  }

  private final long maxObjects;
  private final Check check;
  private final String whatFor;
  private long read;

  private ReachBound(long maxObjects, Check check, String whatFor) {
    this.maxObjects = maxObjects;
    this.check = check;
    this.whatFor = whatFor;
  }

  /** A push's: its judgement's budget, which the content judgement then goes on spending. */
  static ReachBound of(JudgementBudget budget) {
    long maxObjects = Long.getLong(MAX_OBJECTS_PROPERTY, Long.MAX_VALUE);
    return new ReachBound(maxObjects, budget::check, "within "
        + (maxObjects == Long.MAX_VALUE ? "" : objects(maxObjects) + " read and ")
        + budget.budget().toSeconds() + " s");
  }

  /**
   * A fetch's: {@link #FETCH_OBJECTS} read (or {@link #MAX_OBJECTS_PROPERTY}), {@link #FETCH_TIME}
   * on {@code nanoTime}.
   */
  static ReachBound forFetch(LongSupplier nanoTime) {
    return forFetch(Long.getLong(MAX_OBJECTS_PROPERTY, FETCH_OBJECTS), nanoTime);
  }

  static ReachBound forFetch(long maxObjects, LongSupplier nanoTime) {
    JudgementBudget time = new JudgementBudget(FETCH_TIME, () -> false, () -> false, nanoTime);
    return new ReachBound(maxObjects, time::check, "within " + objects(maxObjects) + " read and "
        + FETCH_TIME.toSeconds() + " s");
  }

  private static String objects(long n) {
    return n == 1 ? "1 object" : n + " objects";
  }

  /** None: a test's, or a caller that bounds the decision otherwise. */
  static ReachBound none() {
    return new ReachBound(Long.MAX_VALUE, () -> { }, "");
  }

  /** Objects read so far. */
  long read() {
    return read;
  }

  /**
   * One more object read.
   *
   * @throws Reach.Undecided past the bound (time or objects)
   * @throws JudgementBudget.Abandoned a push's client gone, the appliance stopping
   */
  void step() throws IOException {
    if (++read > maxObjects) {
      throw new Reach.Undecided(whatFor);
    }
    try {
      check.check();
    } catch (JudgementBudget.OutOfTime e) {
      throw new Reach.Undecided(whatFor);
    }
  }

  /**
   * {@code reader}, each object it opens a step of this bound. The caller's to close: a walk
   * made on a reader does not close it.
   */
  ObjectReader reading(ObjectReader reader) {
    return CheckedOpens.of(reader, id -> step());
  }
}
