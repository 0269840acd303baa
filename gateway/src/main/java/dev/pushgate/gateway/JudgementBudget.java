package dev.pushgate.gateway;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * What one judgement may still spend: its time, until a deadline on the monotonic clock, and its
 * reason to go on, while the client that asked for it is still there and the appliance is not
 * stopping. Checked at every step of a judgement (each commit and tree entry walked, each blob
 * read, each cached verdict reused), not only while bytes are scanned: a push of many commits
 * swapping files between contents already seen costs no scan, yet hours of walking.
 */
final class JudgementBudget {
  private final Duration budget;
  private final long deadlineNanos;
  private final BooleanSupplier clientGone;
  private final LongSupplier nanoTime;
  private final BooleanSupplier stopping;

  /**
   * @param budget the time the whole judgement may take
   * @param clientGone true once the client that asked has gone (its connection closed): the
   *     judgement is then abandoned, nobody is waiting for its answer
   */
  JudgementBudget(Duration budget, BooleanSupplier clientGone) {
    this(budget, clientGone, () -> false);
  }

  /** @param stopping true once the appliance stops: nobody will be told the answer */
  JudgementBudget(Duration budget, BooleanSupplier clientGone, BooleanSupplier stopping) {
    this(budget, clientGone, stopping, System::nanoTime);
  }

  /** @param nanoTime the monotonic clock (a test's steps it) */
  JudgementBudget(Duration budget, BooleanSupplier clientGone, BooleanSupplier stopping,
      LongSupplier nanoTime) {
    this.budget = budget;
    this.nanoTime = nanoTime;
    this.deadlineNanos = nanoTime.getAsLong() + budget.toNanos();
    this.clientGone = clientGone;
    this.stopping = stopping;
  }

  /** A budget of {@code budget} for a caller that stays (a test, an API call judged inline). */
  static JudgementBudget of(Duration budget) {
    return new JudgementBudget(budget, () -> false);
  }

  Duration budget() {
    return budget;
  }

  /**
   * Returns while the judgement may go on.
   *
   * @throws OutOfTime past the deadline: what is being judged is refused as not judged
   * @throws Abandoned the client has gone or the thread was interrupted (the appliance stops)
   */
  void check() throws OutOfTime, Abandoned {
    if (Thread.currentThread().isInterrupted() || stopping.getAsBoolean()) {
      throw new Abandoned("the appliance is stopping");
    }
    if (nanoTime.getAsLong() - deadlineNanos > 0) {
      throw new OutOfTime(budget);
    }
    if (clientGone.getAsBoolean()) {
      throw new Abandoned("the client closed its connection");
    }
  }

  /** The judgement went past its budget; fail closed. */
  static final class OutOfTime extends IOException {
    private static final long serialVersionUID = 1L;

    OutOfTime(Duration budget) {
      super("content not judged within " + budget.toSeconds() + " s", null);
    }
  }

  /** Nobody waits for the judgement any more: it stops, and nothing it judged is pushed. */
  static final class Abandoned extends InterruptedIOException {
    private static final long serialVersionUID = 1L;

    Abandoned(String why) {
      super("judgement abandoned: " + why);
    }
  }
}
