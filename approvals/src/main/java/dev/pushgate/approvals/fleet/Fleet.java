package dev.pushgate.approvals.fleet;

import dev.pushgate.approvals.Answer;
import dev.pushgate.approvals.ApprovalDesk;
import dev.pushgate.approvals.FleetDesk;
import dev.pushgate.approvals.Question;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This appliance as one of a fleet sharing a PostgreSQL database (docs/operations.md#a-fleet-on-
 * one-database). The database is the truth; a {@code NOTIFY} only wakes the others early:
 *
 * <ul>
 *   <li>a heartbeat row per appliance says whether an approver is connected to it; an appliance
 *       not seen for {@link #DOWN_AFTER} is down, counts as no approver, and its open questions
 *       are withdrawn (never allowed);
 *   <li>a question ends in its row, first end wins ({@code UPDATE … WHERE ended_at IS NULL}):
 *       an answer given on any appliance, or the holder's own time-out or withdrawal;
 *   <li>a run ended on any appliance (its row's {@code ended_at}) ends on the one holding it.
 * </ul>
 *
 * What a lost notice would have said is found by the heartbeat's own reads, every {@link
 * #HEARTBEAT}, and when the listening connection comes back. The rows and notices are the {@link
 * FleetTables} the appliance gives.
 */
public final class Fleet implements FleetDesk, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Fleet.class);

  /** How often this appliance writes its heartbeat and reads what notices may have missed. */
  public static final Duration HEARTBEAT = Duration.ofSeconds(1);
  /** An appliance whose heartbeat is older than this is down. */
  public static final Duration DOWN_AFTER = Duration.ofSeconds(10);
  /** What a notice names: a question or run id as this appliance makes them, nothing longer. */
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9_.-]{1,128}");

  private final FleetTables tables;
  private final String host;
  private final ApprovalDesk desk;
  private final RunsHere runs;
  private final ScheduledExecutorService beat;
  private final ExecutorService work;
  private volatile AutoCloseable notices = () -> {};
  /** The other appliances' open questions this one's approvers have heard of. */
  private final Set<String> announced = ConcurrentHashMap.newKeySet();

  /** The runs this appliance holds, as the fleet ends them when another appliance did. */
  public interface RunsHere {
    /** The ids of the runs live here. */
    Set<String> liveIds();

    /** Run {@code runId} ended elsewhere: end it here too, if it is live here. */
    boolean endedElsewhere(String runId);
  }

  private Fleet(FleetTables tables, ApprovalDesk desk, RunsHere runs) {
    this.tables = tables;
    this.host = tables.host();
    this.desk = desk;
    this.runs = runs;
    this.beat = Executors.newSingleThreadScheduledExecutor(daemon("pushgate-fleet-heartbeat"));
    this.work = Executors.newSingleThreadExecutor(daemon("pushgate-fleet-work"));
  }

  /**
   * Joins the fleet of appliances on {@code tables} as their host: withdraws what this host held
   * before a restart, writes its first heartbeat, then listens and beats until closed. The
   * caller sends {@link #runEnded} every run that ends here.
   */
  public static Fleet join(FleetTables tables, ApprovalDesk desk, RunsHere runs)
      throws FleetTables.Unavailable {
    Fleet fleet = new Fleet(tables, desk, runs);
    int withdrawn = tables.withdrawOwnQuestions();
    if (withdrawn > 0) {
      log.info("fleet: {} question(s) this host held before it restarted withdrawn", withdrawn);
    }
    fleet.heartbeat();
    desk.joinFleet(fleet);
    fleet.notices = tables.listen(fleet::heard, () -> fleet.run(fleet::catchUp));
    long every = HEARTBEAT.toMillis();
    fleet.beat.scheduleWithFixedDelay(fleet::beatQuietly, every, every, TimeUnit.MILLISECONDS);
    log.info("fleet: host {} joined", fleet.host);
    return fleet;
  }

  // --- the desk's view of the fleet ---

  @Override
  public boolean approverElsewhere() {
    try {
      return tables.approverElsewhere();
    } catch (FleetTables.Unavailable e) {
      // Fail closed: an approver nobody can see is no approver, and the question is refused.
      log.warn("fleet: cannot read the other appliances' approvers, so none counts: {}",
          e.getMessage());
      return false;
    }
  }

  @Override
  public void held(Question q) {
    notifyQuietly("asked:" + q.id());
  }

  @Override
  public Answer settle(Question q, Answer proposed) {
    try {
      if (tables.end(q.id(), proposed)) {
        notifyQuietly("ended:" + q.id());
        return proposed;
      }
      Optional<FleetTables.Row> row = tables.question(q.id());
      if (row.isEmpty() || row.get().answer() == null) {
        return proposed.allowed() ? unrecorded() : proposed;
      }
      if (proposed.outcome() == Answer.Outcome.CANCELLED) {
        return proposed; // a withdrawal stands: the run ended, or this appliance is stopping
      }
      return row.get().answer();
    } catch (FleetTables.Unavailable e) {
      log.warn("fleet: cannot record the end of question {}: {}", q.id(), e.getMessage());
      return proposed.allowed() ? unrecorded() : proposed;
    }
  }

  private static Answer unrecorded() {
    return new Answer(Answer.Outcome.DENIED, null, "the answer could not be recorded in the"
        + " fleet's database, so it does not count");
  }

  @Override
  public Optional<Question> answerElsewhere(String id, Answer a) {
    if (!ID.matcher(id).matches()) {
      return Optional.empty();
    }
    try {
      Optional<Question> answered = tables.endElsewhere(id, a);
      answered.ifPresent(q -> {
        log.info("approval {} {} here, for the appliance holding it", q.id(), a.outcome().id());
        notifyQuietly("ended:" + q.id());
      });
      return answered;
    } catch (FleetTables.Unavailable e) {
      log.warn("fleet: cannot record an answer to question {}: {}", id, e.getMessage());
      return Optional.empty();
    }
  }

  @Override
  public List<Question> pendingElsewhere(String runId) {
    try {
      return tables.openElsewhere(runId);
    } catch (FleetTables.Unavailable e) {
      log.warn("fleet: cannot read the other appliances' questions: {}", e.getMessage());
      return List.of();
    }
  }

  @Override
  public void presenceChanged() {
    run(this::beatQuietly, beat);
  }

  /** A run ended here (teardown, expiry): the appliance holding it ends it too. */
  public void runEnded(String runId) {
    notifyQuietly("run-ended:" + runId);
  }

  // --- notices and the heartbeat ---

  /** A notice from an appliance of the fleet (this one included); the database says what. */
  private void heard(String payload) {
    int colon = payload.indexOf(':');
    String kind = colon < 0 ? payload : payload.substring(0, colon);
    String id = colon < 0 ? "" : payload.substring(colon + 1);
    if (!ID.matcher(id).matches()) {
      log.warn("fleet: a notice that names no id was ignored");
      return;
    }
    run(() -> {
      switch (kind) {
        case "asked" -> tables.question(id)
            .filter(r -> !host.equals(r.host()) && r.answer() == null)
            .ifPresent(r -> announceAsked(r.question()));
        case "ended" -> tables.question(id).filter(r -> r.answer() != null).ifPresent(r -> {
          if (host.equals(r.host())) {
            desk.settledElsewhere(id, r.answer());
          } else if (announced.remove(id)) { // once: the catch-up may have told it already
            desk.heardEnded(r.question(), r.answer());
          }
        });
        case "run-ended" -> endIfEndedElsewhere(Set.of(id));
        default -> log.warn("fleet: a notice of an unknown kind was ignored");
      }
      return null;
    });
  }

  private void beatQuietly() {
    try {
      heartbeat();
      withdrawQuestionsOfDownHosts();
      run(this::catchUp);
    } catch (FleetTables.Unavailable e) {
      log.warn("fleet: heartbeat failed: {}", e.getMessage());
    } catch (RuntimeException e) {
      log.warn("fleet: heartbeat failed: {}", e.toString());
    }
  }

  private void heartbeat() throws FleetTables.Unavailable {
    tables.beat(desk.approverHere());
  }

  /** Questions held by an appliance that stopped beating end as withdrawn: never allowed. */
  private void withdrawQuestionsOfDownHosts() throws FleetTables.Unavailable {
    for (String id : tables.withdrawQuestionsOfDownHosts()) {
      log.info("fleet: question {} withdrawn: the appliance holding it is down", id);
      notifyQuietly("ended:" + id);
    }
  }

  /** What notices may have missed: questions held here that ended, runs live here that ended. */
  private Void catchUp() throws FleetTables.Unavailable {
    List<Question> held = desk.heldHere(null);
    if (!held.isEmpty()) {
      Set<String> ids = new HashSet<>();
      held.forEach(q -> ids.add(q.id()));
      tables.ended(ids).stream().filter(r -> r.answer() != null)
          .forEach(r -> desk.settledElsewhere(r.question().id(), r.answer()));
    }
    endIfEndedElsewhere(runs.liveIds());
    catchUpElsewhere();
    return null;
  }

  /**
   * The other appliances' questions as this one's approvers should have heard of them: an open
   * one not yet announced (its notice was lost, or came before this appliance listened), an
   * announced one that ended. Each is announced asked once and ended once (notices and this
   * catch-up run on the one work thread).
   */
  private void catchUpElsewhere() throws FleetTables.Unavailable {
    Set<String> open = new HashSet<>();
    for (Question q : tables.openElsewhere(null)) {
      open.add(q.id());
      announceAsked(q);
    }
    for (String id : List.copyOf(announced)) {
      if (!open.contains(id)) {
        announced.remove(id);
        tables.question(id).filter(r -> r.answer() != null)
            .ifPresent(r -> desk.heardEnded(r.question(), r.answer()));
      }
    }
  }

  private void announceAsked(Question q) {
    if (announced.add(q.id())) {
      desk.heardAsked(q);
    }
  }

  private void endIfEndedElsewhere(Set<String> runIds) throws FleetTables.Unavailable {
    if (runIds.isEmpty()) {
      return;
    }
    tables.endedRuns(runIds).forEach(runs::endedElsewhere);
  }

  private void notifyQuietly(String payload) {
    try {
      tables.tell(payload);
    } catch (FleetTables.Unavailable e) {
      // The heartbeats' reads find what this notice would have said, a little later.
      log.warn("fleet: cannot notify the other appliances: {}", e.getMessage());
    }
  }

  /** Work that reads the database, off the thread that listens or beats. */
  private interface Step {
    Void run() throws FleetTables.Unavailable;
  }

  private void run(Step step) {
    run(() -> {
      try {
        step.run();
      } catch (FleetTables.Unavailable e) {
        log.warn("fleet: {}", e.getMessage());
      } catch (RuntimeException e) {
        log.warn("fleet: {}", e.toString());
      }
    }, work);
  }

  private static void run(Runnable r, ExecutorService on) {
    try {
      on.execute(r);
    } catch (RejectedExecutionException closing) {
      // The appliance is stopping.
    }
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  /** Stops listening and beating, and leaves the fleet at once: no approver counts here. */
  @Override
  public void close() {
    try {
      notices.close();
    } catch (Exception e) {
      log.warn("fleet: the notices did not stop cleanly: {}", e.toString());
    }
    beat.shutdownNow();
    work.shutdown();
    try {
      work.awaitTermination(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      tables.leave();
    } catch (FleetTables.Unavailable e) {
      log.warn("fleet: could not leave the fleet's presence table: {}", e.getMessage());
    }
  }
}
