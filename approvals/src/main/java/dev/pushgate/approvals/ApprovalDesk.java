package dev.pushgate.approvals;

import dev.pushgate.gateway.RunSlots;
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
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where "ask first" questions wait for a person. A question is asked only while an approver is
 * connected (a stream open on the control API, or a long poll seen lately); otherwise, when
 * nobody answers in time, and when the run already has its share of questions waiting, the answer
 * is no. Every question and its end is written to the log. In a fleet on one database (see
 * {@link FleetDesk}) the approvers and questions of every appliance count and show here, and the
 * first end of a question, wherever it was given, is the one that counts.
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

  /** Questions one run may have waiting at once, unless the appliance says otherwise. */
  public static final int DEFAULT_HELD_PER_RUN = 8;
  /** How long a long poll counts as a connected approver, unless the appliance says otherwise. */
  public static final Duration DEFAULT_POLL_GRACE = Duration.ofSeconds(10);

  private record Pending(Question question, CompletableFuture<Answer> answer) {}

  /**
   * The longest command held for an approver, and the longest list an API call's question shows;
   * a longer one is refused unasked.
   */
  public static final int MAX_COMMAND = 4096;
  /** How an API call's question's kind begins ({@code api open-pull-request, write-tracker}). */
  static final String API_KIND = "api ";
  /** The longest ref name held for an approver. */
  public static final int MAX_REF = 1024;

  private final Predicate<String> runLive;
  private final Clock clock;
  /** Replaced by a reload (SIGHUP); a question keeps the deadline it was asked with. */
  private volatile Duration timeout;
  private final Duration keepalive;
  private final Duration pollGrace;
  private final ApprovalLog store;
  private final Map<String, Pending> pending = new ConcurrentHashMap<>();
  private final List<Listener> listeners = new CopyOnWriteArrayList<>();
  /**
   * Told only of the questions this appliance holds (webhooks): in a fleet each question is
   * announced once, by its holder, not once per appliance.
   */
  private final List<Listener> observers = new CopyOnWriteArrayList<>();
  private final AtomicInteger streams = new AtomicInteger();
  private final RunSlots heldPerRun;
  private volatile Instant lastPoll = Instant.EPOCH;
  private volatile String closedBecause;
  /** The other appliances sharing this one's database; nobody for a single host. */
  private volatile FleetDesk fleet = FleetDesk.NONE;

  /**
   * @param runLive whether a run has not ended: questions of an ended run are withdrawn, never
   *     held
   */
  public ApprovalDesk(Clock clock, Duration timeout, Duration keepalive, ApprovalLog store,
      Predicate<String> runLive) {
    this(clock, timeout, keepalive, store, runLive, DEFAULT_HELD_PER_RUN);
  }

  /** {@code heldPerRun}: questions one run may have waiting at once; more are refused unasked. */
  public ApprovalDesk(Clock clock, Duration timeout, Duration keepalive, ApprovalLog store,
      int heldPerRun) {
    this(clock, timeout, keepalive, store, runId -> true, heldPerRun);
  }

  public ApprovalDesk(Clock clock, Duration timeout, Duration keepalive, ApprovalLog store,
      Predicate<String> runLive, int heldPerRun) {
    this(clock, timeout, keepalive, DEFAULT_POLL_GRACE, store, runLive, heldPerRun);
  }

  /**
   * {@code pollGrace}: how long after a long poll an approver still counts as connected, so that
   * the gap between one poll and the next does not turn questions into refusals.
   */
  public ApprovalDesk(Clock clock, Duration timeout, Duration keepalive, Duration pollGrace,
      ApprovalLog store, Predicate<String> runLive, int heldPerRun) {
    if (pollGrace.isNegative()) {
      throw new IllegalArgumentException("the approver poll grace must not be negative: "
          + pollGrace);
    }
    this.runLive = runLive;
    this.heldPerRun = new RunSlots(heldPerRun);
    this.clock = clock;
    this.timeout = timeout;
    this.keepalive = keepalive;
    this.pollGrace = pollGrace;
    this.store = store;
  }

  public Duration timeout() {
    return timeout;
  }

  /** The wait of questions asked from now on; those already held keep theirs. */
  public void retime(Duration next) {
    if (next.isNegative() || next.isZero()) {
      throw new IllegalArgumentException("the approval timeout must be positive: " + next);
    }
    this.timeout = next;
  }

  /**
   * Joins a fleet sharing one database: its approvers count, its questions are listed and
   * answered here, and every end of a question held here is settled in the shared record.
   */
  public void joinFleet(FleetDesk fleet) {
    this.fleet = fleet;
  }

  /** An approver is connected, here or to another appliance of the fleet. */
  public boolean approverConnected() {
    return approverHere() || fleet.approverElsewhere();
  }

  /** An approver is connected here: a stream is open, or someone polled within the poll grace. */
  public boolean approverHere() {
    return streams.get() > 0 || lastPoll.plus(pollGrace).isAfter(clock.instant());
  }

  /** Asks and waits; {@code progress} hears a line at least every keepalive while waiting. */
  public Answer ask(Question draft, Consumer<String> progress) {
    Held held = hold(draft);
    if (!held.waiting()) {
      return held.ended().join();
    }
    Question q = held.question();
    progress.accept("waiting for approval of " + q.summary() + " (question " + q.id()
        + ", up to " + Duration.between(q.askedAt(), q.deadline()).toSeconds() + " s)");
    while (true) {
      try {
        return held.ended().get(keepalive.toMillis(), TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        progress.accept("still waiting for approval (question " + q.id() + ", "
            + Math.max(0, Duration.between(clock.instant(), q.deadline()).toSeconds())
            + " s left)");
      } catch (InterruptedException e) {
        // The appliance's shutdown withdraws its questions (close) before it stops the threads
        // waiting on them; an interrupt here is the asker's own: its client has gone.
        Thread.currentThread().interrupt();
        held.answer().complete(cancelled(q,
            "the request that asked it stopped waiting (its client went away)"));
        return held.ended().join();
      } catch (ExecutionException e) {
        return new Answer(Answer.Outcome.DENIED, null, "the question failed");
      }
    }
  }

  /**
   * Asks without waiting: the answer completes when someone answers, the question times out or
   * the desk closes. A held question holds no thread, so that a run's questions cost memory, not
   * the request threads every run shares.
   */
  public CompletableFuture<Answer> askAsync(Question draft) {
    return hold(draft).ended();
  }

  /** A question put to the approvers, or refused at once; {@code ended} follows its recording. */
  private record Held(Question question, CompletableFuture<Answer> answer,
      CompletableFuture<Answer> ended, boolean waiting) {}

  private Held hold(Question draft) {
    Instant now = clock.instant();
    Duration wait = timeout; // read once: a reload may change it while this question is put
    Question q = draft.held(newId(), now, now.plus(wait));
    Optional<RunSlots.Slot> slot = Optional.empty();
    Answer atOnce = unaskable(q).orElse(null);
    if (atOnce == null) {
      slot = heldPerRun.tryTake(q.runId());
      if (slot.isEmpty()) {
        atOnce = new Answer(Answer.Outcome.NO_APPROVER, null, withRule(q, "this run already has "
            + heldPerRun.perRun() + " questions waiting for an approver; this one was not asked"));
      }
    }
    if (atOnce != null) {
      store.asked(q);
      store.ended(q, atOnce);
      CompletableFuture<Answer> done = CompletableFuture.completedFuture(atOnce);
      return new Held(q, done, done, false);
    }
    RunSlots.Slot held = slot.get();
    Pending p = new Pending(q, new CompletableFuture<>());
    pending.put(q.id(), p);
    // Registered before the run's liveness is read, so a teardown either sees this question and
    // withdraws it, or ended the run before the check below.
    if (!runLive.test(q.runId())) {
      p.answer().complete(cancelled(q, "run " + q.runId() + " has ended"));
    }
    store.asked(q);
    fleet.held(q);
    log.info("approval {} asked: {}", q.id(), q.summary());
    listeners.forEach(l -> safely(() -> l.onAsked(q)));
    observers.forEach(l -> safely(() -> l.onAsked(q)));
    p.answer().completeOnTimeout(new Answer(Answer.Outcome.TIMED_OUT, null,
        withRule(q, "nobody answered within " + wait.toSeconds() + " s")), wait.toMillis(),
        TimeUnit.MILLISECONDS);
    CompletableFuture<Answer> ended = p.answer().handle((answer, failure) -> {
      Answer a = fleet.settle(q, failure == null ? answer
          : new Answer(Answer.Outcome.DENIED, null, "the question failed"));
      pending.remove(q.id());
      held.close();
      store.ended(q, a);
      log.info("approval {} {}{}", q.id(), a.outcome().id(), a.by() == null ? "" : " by " + a.by());
      listeners.forEach(l -> safely(() -> l.onEnded(q, a)));
      observers.forEach(l -> safely(() -> l.onEnded(q, a)));
      return a;
    });
    return new Held(q, p.answer(), ended, true);
  }

  /** The answer of a question that is never put to anyone, if this is one. */
  private Optional<Answer> unaskable(Question q) {
    if (closedBecause != null) {
      return Optional.of(cancelled(q, closedBecause));
    }
    String tooLong = tooLong("command", q.command(), MAX_COMMAND)
        .or(() -> tooLong("ref", q.ref(), MAX_REF))
        .or(() -> tooLong("question", apiCallShown(q), MAX_COMMAND)).orElse(null);
    if (tooLong != null) {
      return Optional.of(new Answer(Answer.Outcome.TOO_LONG, null, tooLong));
    }
    if (!approverConnected()) {
      return Optional.of(new Answer(Answer.Outcome.NO_APPROVER, null,
          withRule(q, "no approver is connected")));
    }
    return Optional.empty();
  }

  /**
   * What an API call's question lists (every action of the call and what it says), where the
   * call's body, not pushgate, decides the length: held to the command's limit, as what a
   * person reads whole before one answer (found by a docs-only attack: 400 extra fields made a
   * 10,464-character question). A push's list is bounded by pushgate itself; null otherwise.
   */
  private static String apiCallShown(Question q) {
    return q.kind() != null && q.kind().startsWith(API_KIND) && q.commits() != null
        ? String.join("\n", q.commits()) : null;
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

  /**
   * Answers a pending question, held here or by another appliance of the fleet; empty when there
   * is no such question (any more), or another answer came first.
   */
  public Optional<Question> answer(String id, boolean allow, String by, String reason) {
    String who = by == null || by.isBlank() ? "an approver" : by;
    String why = allow ? "approved by " + who
        : "denied by " + who + (reason == null || reason.isBlank() ? "" : ": " + reason);
    Answer mine = new Answer(allow ? Answer.Outcome.ALLOWED : Answer.Outcome.DENIED, who, why);
    Pending p = pending.get(id);
    if (p == null) {
      return fleet.answerElsewhere(id, mine);
    }
    if (p.answer().isDone()) {
      return Optional.empty();
    }
    // The shared record first: an approver on another appliance may have answered already.
    Answer won = fleet.settle(p.question(), mine);
    // The fleet's catch-up may end the question with this very answer, read back from the record.
    boolean ended = p.answer().complete(won) || won.equals(p.answer().getNow(null));
    return ended && won.equals(mine) ? Optional.of(p.question()) : Optional.empty();
  }

  /**
   * A question held here ended in the shared record (answered on another appliance, or withdrawn
   * there because this one seemed down): it ends so here too. Nothing when it is not held here.
   */
  public void settledElsewhere(String id, Answer a) {
    Pending p = pending.get(id);
    if (p != null) {
      p.answer().complete(a);
    }
  }

  /** Another appliance of the fleet holds a new question: this one's approvers hear of it. */
  public void heardAsked(Question q) {
    listeners.forEach(l -> safely(() -> l.onAsked(q)));
  }

  /** A question another appliance held ended: this one's approvers hear of it. */
  public void heardEnded(Question q, Answer a) {
    listeners.forEach(l -> safely(() -> l.onEnded(q, a)));
  }

  /**
   * Pending questions of every run, here and on the fleet's other appliances, oldest first;
   * filtered by run when {@code runId} is set.
   */
  public List<Question> pending(String runId) {
    List<Question> here = heldHere(runId);
    List<Question> elsewhere = fleet.pendingElsewhere(runId);
    if (elsewhere.isEmpty()) {
      return here;
    }
    return Stream.concat(here.stream(), elsewhere.stream())
        .sorted(Comparator.comparing(Question::askedAt)).toList();
  }

  /** Pending questions held by this appliance, oldest first; of one run when set. */
  public List<Question> heldHere(String runId) {
    return pending.values().stream().filter(p -> !p.answer().isDone()).map(Pending::question)
        .filter(q -> runId == null || q.runId().equals(runId))
        .sorted(Comparator.comparing(Question::askedAt)).toList();
  }

  /** A long poll was made: an approver is around. */
  public void polled() {
    boolean was = approverHere();
    lastPoll = clock.instant();
    if (!was) {
      fleet.presenceChanged();
    }
  }

  /** An approver's stream opened; the returned handle closes it. */
  public AutoCloseable connect(Listener listener) {
    listeners.add(listener);
    streams.incrementAndGet();
    fleet.presenceChanged();
    return () -> {
      listeners.remove(listener);
      streams.decrementAndGet();
      fleet.presenceChanged();
    };
  }

  /**
   * Tells {@code listener} of every question and its end without counting it as an approver (a
   * webhook): it never makes a question askable, and it hears only the questions this appliance
   * holds, never those another appliance of the fleet announced. The returned handle removes it.
   */
  public AutoCloseable observe(Listener listener) {
    observers.add(listener);
    return () -> observers.remove(listener);
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
    observers.forEach(l -> safely(l::onClosed));
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
