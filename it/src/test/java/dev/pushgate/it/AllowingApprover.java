package dev.pushgate.it;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.RunningAppliance;
import dev.pushgate.testkit.Wait;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * An approver that allows every question it is asked, as {@code alice}, until closed: for a
 * chat-mode run inside a sandbox, whose pushes the gateway asks about as the command policy asks
 * about {@code git push} without one. Open only once the appliance counts it connected, so that a
 * question asked after {@link #connect} is held for it, not refused.
 */
final class AllowingApprover implements AutoCloseable {
  private final RunningAppliance app;
  private final Thread thread;
  private final List<String> questions = new ArrayList<>();
  private volatile boolean closed;
  /** While set, questions are left waiting: they hold their pushes' requests. */
  private volatile boolean holding;

  private AllowingApprover(RunningAppliance app, boolean holding) {
    this.app = app;
    this.holding = holding;
    this.thread = new Thread(this::answer, "allowing-approver");
    thread.setDaemon(true);
  }

  static AllowingApprover connect(RunningAppliance app) throws Exception {
    return connect(app, false);
  }

  /**
   * Connected, but answering nothing until {@link #allow}: the questions asked meanwhile are
   * held, each with its push's request.
   */
  static AllowingApprover connectHolding(RunningAppliance app) throws Exception {
    return connect(app, true);
  }

  private static AllowingApprover connect(RunningAppliance app, boolean holding)
      throws Exception {
    AllowingApprover a = new AllowingApprover(app, holding);
    a.thread.start();
    Wait.until(Duration.ofSeconds(30), "the appliance to count the approver connected",
        () -> app.control().get("/v1/approvals").body().get("approverConnected").asBoolean());
    return a;
  }

  /** From now on every question is allowed, those held included. */
  void allow() {
    holding = false;
  }

  /** The questions allowed so far, as the control API showed them (JSON), in order. */
  synchronized List<String> questions() {
    return List.copyOf(questions);
  }

  private void answer() {
    while (!closed) {
      try {
        JsonNode pending = app.control().get("/v1/approvals?wait=2").body().get("questions");
        if (holding) {
          continue;
        }
        for (JsonNode q : pending) {
          synchronized (this) {
            questions.add(q.toString());
          }
          app.control().post("/v1/approvals/" + q.get("id").asText(),
              "{\"decision\": \"allow\", \"by\": \"alice\"}");
        }
      } catch (Exception e) {
        if (!closed) {
          throw new IllegalStateException(e);
        }
      }
    }
  }

  @Override
  public void close() throws InterruptedException {
    closed = true;
    thread.join(Duration.ofSeconds(30).toMillis());
  }
}
