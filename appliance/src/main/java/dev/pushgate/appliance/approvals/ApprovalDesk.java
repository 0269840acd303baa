package dev.pushgate.appliance.approvals;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where "ask first" questions wait for a person. A question is asked only while an approver is
 * connected (a stream open on the control API, or a long poll seen lately); otherwise, and when
 * nobody answers in time, the answer is no. Every question and its end is written to the log.
 */
public final class ApprovalDesk {
  private static final Logger log = LoggerFactory.getLogger(ApprovalDesk.class);
  private static final SecureRandom RANDOM = new SecureRandom();

  /** Told of every new question and of every question that ends. */
  public interface Listener {
    void onAsked(Question q);

    void onEnded(Question q, Answer a);

    /** The desk closed: the appliance is stopping. */
    default void onClosed() {}
  }

  private record Pending(Question question, CompletableFuture<Answer> answer) {}

  /** The longest command held for an approver; a longer one is refused unasked. */
  public static final int MAX_COMMAND = 4096;
  /** The longest ref name held for an approver. */
  public static final int MAX_REF = 1024;

  private final Predicate<String> runLive;
  private final Clock clock;
  private final Duration timeout;
  private final Duration keepalive;
  private final Duration pollGrace;
  private final ApprovalLog store;
  private final Map<String, Pending> pending = new ConcurrentHashMap<>();
  private final List<Listener> listeners = new CopyOnWriteArrayList<>();
  private final AtomicInteger streams = new AtomicInteger();
  private volatile Instant lastPoll = Instant.EPOCH;
  private volatile String closedBecause;

  /**
   * @param runLive whether a run has not ended: questions of an ended run are withdrawn, never
   *     held
   */
  public ApprovalDesk(Clock clock, Duration timeout, Duration keepalive, ApprovalLog store,
      Predicate<String> runLive) {
    this.runLive = runLive;
    this.clock = clock;
    this.timeout = timeout;
    this.keepalive = keepalive;
    this.pollGrace = Duration.ofSeconds(10);
    this.store = store;
  }

  public Duration timeout() {
    return timeout;
  }

  /** An approver is connected: a stream is open, or someone polled in the last 10 s. */
  public boolean approverConnected() {
    return streams.get() > 0 || lastPoll.plus(pollGrace).isAfter(clock.instant());
  }

  /** Asks and waits; {@code progress} hears a line at least every keepalive while waiting. */
  public Answer ask(Question draft, Consumer<String> progress) {
    Instant now = clock.instant();
    Question q = new Question(newId(), now, now.plus(timeout), draft.action(), draft.runId(),
        draft.workspaceId(), draft.repository(), draft.ref(), draft.kind(), draft.oldId(),
        draft.newId(), draft.command(), draft.rule(), draft.reason(), draft.commits());
    Optional<Answer> unasked = unaskable(q);
    if (unasked.isPresent()) {
      store.asked(q);
      store.ended(q, unasked.get());
      return unasked.get();
    }
    Pending p = new Pending(q, new CompletableFuture<>());
    pending.put(q.id(), p);
    // Registered before the run's liveness is read, so a teardown either sees this question and
    // withdraws it, or ended the run before the check below.
    if (!runLive.test(q.runId())) {
      p.answer().complete(cancelled(q, "run " + q.runId() + " has ended"));
    }
    store.asked(q);
    log.info("approval {} asked: {}", q.id(), q.summary());
    listeners.forEach(l -> safely(() -> l.onAsked(q)));
    Answer answer;
    try {
      answer = waitFor(p, progress);
    } finally {
      pending.remove(q.id());
    }
    store.ended(q, answer);
    log.info("approval {} {}{}", q.id(), answer.outcome().id(),
        answer.by() == null ? "" : " by " + answer.by());
    Answer ended = answer;
    listeners.forEach(l -> safely(() -> l.onEnded(q, ended)));
    return answer;
  }

  /** The answer of a question that is never put to anyone, if this is one. */
  private Optional<Answer> unaskable(Question q) {
    if (closedBecause != null) {
      return Optional.of(cancelled(q, closedBecause));
    }
    String tooLong = tooLong("command", q.command(), MAX_COMMAND)
        .or(() -> tooLong("ref", q.ref(), MAX_REF)).orElse(null);
    if (tooLong != null) {
      return Optional.of(new Answer(Answer.Outcome.TOO_LONG, null, tooLong));
    }
    if (!approverConnected()) {
      return Optional.of(new Answer(Answer.Outcome.NO_APPROVER, null,
          withRule(q, "no approver is connected")));
    }
    return Optional.empty();
  }

  private static Optional<String> tooLong(String what, String text, int max) {
    if (text == null || text.length() <= max) {
      return Optional.empty();
    }
    return Optional.of("the " + what + " is " + text.length() + " characters long, more than an"
        + " approver can be asked to read (at most " + max + "); nobody was asked");
  }

  /** A refusal that keeps the rule's own reason, so the agent learns what the rule wanted. */
  private static String withRule(Question q, String why) {
    return q.reason() == null || q.reason().isBlank() ? why : q.reason() + " (" + why + ")";
  }

  private static Answer cancelled(Question q, String why) {
    return new Answer(Answer.Outcome.CANCELLED, null,
        "the question was withdrawn before anyone answered: " + why);
  }

  private Answer waitFor(Pending p, Consumer<String> progress) {
    Question q = p.question();
    progress.accept("waiting for approval of " + q.summary() + " (question " + q.id()
        + ", up to " + timeout.toSeconds() + " s)");
    while (true) {
      Duration left = Duration.between(clock.instant(), q.deadline());
      if (left.isNegative() || left.isZero()) {
        return new Answer(Answer.Outcome.TIMED_OUT, null,
            withRule(q, "nobody answered within " + timeout.toSeconds() + " s"));
      }
      long wait = Math.min(left.toMillis(), keepalive.toMillis());
      try {
        return p.answer().get(wait, TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        progress.accept("still waiting for approval (question " + q.id() + ", "
            + Math.max(0, Duration.between(clock.instant(), q.deadline()).toSeconds())
            + " s left)");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return cancelled(q, "the appliance is shutting down");
      } catch (ExecutionException e) {
        return new Answer(Answer.Outcome.DENIED, null, "the question failed");
      }
    }
  }

  /** Answers a pending question; empty when there is no such question (any more). */
  public Optional<Question> answer(String id, boolean allow, String by, String reason) {
    Pending p = pending.get(id);
    if (p == null) {
      return Optional.empty();
    }
    String who = by == null || by.isBlank() ? "an approver" : by;
    String why = allow ? "approved by " + who
        : "denied by " + who + (reason == null || reason.isBlank() ? "" : ": " + reason);
    boolean won = p.answer().complete(
        new Answer(allow ? Answer.Outcome.ALLOWED : Answer.Outcome.DENIED, who, why));
    return won ? Optional.of(p.question()) : Optional.empty();
  }

  /** Pending questions of every run, oldest first; filtered by run when {@code runId} is set. */
  public List<Question> pending(String runId) {
    return pending.values().stream().filter(p -> !p.answer().isDone()).map(Pending::question)
        .filter(q -> runId == null || q.runId().equals(runId))
        .sorted(Comparator.comparing(Question::askedAt)).toList();
  }

  /** A long poll was made: an approver is around. */
  public void polled() {
    lastPoll = clock.instant();
  }

  /** An approver's stream opened; the returned handle closes it. */
  public AutoCloseable connect(Listener listener) {
    listeners.add(listener);
    streams.incrementAndGet();
    return () -> {
      listeners.remove(listener);
      streams.decrementAndGet();
    };
  }

  /**
   * Withdraws the questions of a run that ended: nothing it held may go ahead on a later answer,
   * which now finds no question.
   */
  public void cancelRun(String runId) {
    pending.values().stream().filter(p -> p.question().runId().equals(runId))
        .forEach(p -> p.answer().complete(cancelled(p.question(), "run " + runId + " has ended")));
  }

  /** Withdraws every pending question and refuses every later one: the appliance is stopping. */
  public void close(String why) {
    closedBecause = why;
    pending.values().forEach(p -> p.answer().complete(cancelled(p.question(), why)));
    listeners.forEach(l -> safely(l::onClosed));
  }

  private static void safely(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException e) {
      log.warn("an approval listener failed: {}", e.toString());
    }
  }

  private static String newId() {
    byte[] b = new byte[8];
    RANDOM.nextBytes(b);
    return "q_" + HexFormat.of().formatHex(b);
  }
}
