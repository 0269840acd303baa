package dev.pushgate.approvals.fleet;

import dev.pushgate.approvals.Answer;
import dev.pushgate.approvals.Question;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * What the fleet reads and writes in the database its appliances share, for one host of it: the
 * port the fleet owns and the appliance fills ({@code store/FleetStore}). "Elsewhere" means held
 * by another host that is still beating; a host not seen for {@link Fleet#DOWN_AFTER} is down.
 * Every method fails with {@link Unavailable}, whose message is safe to log.
 */
public interface FleetTables {
  /** The database could not be read or written; the message names no credential. */
  final class Unavailable extends Exception {
    private static final long serialVersionUID = 1L;

    public Unavailable(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** A question's row: the question, its holder, and its end once it has one. */
  record Row(Question question, String host, Answer answer) {}

  /** This host's name in the fleet. */
  String host();

  /** Writes this host's heartbeat, saying whether an approver is connected here. */
  void beat(boolean approverHere) throws Unavailable;

  /** Leaves the fleet: this host's heartbeat row is deleted. */
  void leave() throws Unavailable;

  /** Whether another live host has an approver connected. */
  boolean approverElsewhere() throws Unavailable;

  /** Ends question {@code id} with {@code a} if it has no end yet; false when it had one. */
  boolean end(String id, Answer a) throws Unavailable;

  /** Ends with {@code a} an open question another live host holds; what it ended. */
  Optional<Question> endElsewhere(String id, Answer a) throws Unavailable;

  /** The open questions other live hosts hold, of one run or ({@code null}) of all. */
  List<Question> openElsewhere(String runId) throws Unavailable;

  /** Withdraws the open questions of hosts that are down; their ids. */
  List<String> withdrawQuestionsOfDownHosts() throws Unavailable;

  /** Withdraws the open questions this host held before it restarted; how many. */
  int withdrawOwnQuestions() throws Unavailable;

  /** The question with this id, as its row says. */
  Optional<Row> question(String id) throws Unavailable;

  /** Those of the questions {@code ids} that have ended. */
  List<Row> ended(Set<String> ids) throws Unavailable;

  /** Those of the runs {@code ids} whose rows say they ended. */
  List<String> endedRuns(Set<String> ids) throws Unavailable;

  /** Tells every host of the fleet (this one included) {@code payload}. */
  void tell(String payload) throws Unavailable;

  /**
   * Hears what {@link #tell} said, on a thread of its own, until closed; runs {@code
   * reconnected} each time it starts listening, to catch up with what was said meanwhile.
   */
  AutoCloseable listen(Consumer<String> heard, Runnable reconnected);
}
