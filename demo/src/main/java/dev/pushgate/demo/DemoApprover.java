package dev.pushgate.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** The demo's approver: connected before the push starts, allows the first question of its run. */
final class DemoApprover implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final DemoHost.ControlApi control;
  private final String runId;
  private final CompletableFuture<String> answered = new CompletableFuture<>();
  private final Thread thread;
  private volatile boolean stopped;

  DemoApprover(DemoHost.ControlApi control, String runId) throws Exception {
    this.control = control;
    this.runId = runId;
    control.get("/v1/approvals?wait=0").orThrow(); // counts as connected from now on
    thread = new Thread(this::answerFirst, "pushgate-demo-approver");
    thread.setDaemon(true);
    thread.start();
  }

  private void answerFirst() {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    try {
      while (!stopped && System.nanoTime() < deadline) {
        JsonNode questions = control.get("/v1/approvals?wait=1&runId=" + runId).orThrow()
            .get("questions");
        if (!questions.isEmpty()) {
          JsonNode q = questions.get(0);
          ObjectNode body = JSON.createObjectNode();
          body.put("decision", "allow");
          body.put("by", "demo");
          control.post("/v1/approvals/" + q.get("id").asText(), body.toString()).orThrow();
          answered.complete(q.get("id").asText() + ": " + q.get("summary").asText()
              + " (rule: " + q.path("reason").asText() + ")");
          return;
        }
      }
      answered.complete(null);
    } catch (Exception e) {
      answered.completeExceptionally(e);
    }
  }

  /** Stops the approver; returns what it allowed, or null when no question came. */
  String answered() throws Exception {
    close();
    try {
      return answered.getNow(null);
    } catch (java.util.concurrent.CompletionException e) {
      throw new Story.Failed("the demo's approver failed: " + e.getCause().getMessage());
    }
  }

  @Override
  public void close() throws InterruptedException {
    stopped = true;
    thread.join(5_000);
  }
}
