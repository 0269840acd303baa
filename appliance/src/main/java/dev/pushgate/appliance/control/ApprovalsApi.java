package dev.pushgate.appliance.control;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pushgate.approvals.Answer;
import dev.pushgate.approvals.ApprovalDesk;
import dev.pushgate.approvals.ApproverStream;
import dev.pushgate.approvals.Question;
import dev.pushgate.appliance.runs.RunRequestException;
import dev.pushgate.types.UntrustedText;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;

/**
 * The approvers' side of the control API: pending questions as a list, a long poll, or a stream
 * of server-sent events; and the answer to one.
 */
final class ApprovalsApi {
  private static final Duration KEEPALIVE = Duration.ofSeconds(10);

  private final ApprovalDesk desk;
  private final ObjectMapper json;
  private final ApproverStream stream;

  ApprovalsApi(ApprovalDesk desk, ObjectMapper json) {
    this.desk = desk;
    this.json = json;
    // The API gives what an agent wrote as it is (QuestionJson), for programs to read.
    this.stream = new ApproverStream(desk, json, KEEPALIVE, new ApproverStream.Shape() {
      @Override
      public JsonNode asked(Question q) {
        return questionJson(q);
      }

      @Override
      public JsonNode ended(Question q, Answer a) {
        ObjectNode n = json.createObjectNode();
        n.put("id", q.id());
        n.put("outcome", a.outcome().id());
        n.put("by", a.by());
        n.put("reason", a.reason());
        return n;
      }
    }, false);
  }

  /** {@code GET /v1/approvals[?runId=…][&wait=SECONDS]}. */
  JsonNode list(Request request) throws InterruptedException, RunRequestException {
    Fields q = Request.extractQueryParameters(request);
    String runId = q.getValue("runId");
    long wait = 0;
    if (q.getValue("wait") != null) {
      try {
        wait = Math.min(60, Math.max(0, Long.parseLong(q.getValue("wait"))));
      } catch (NumberFormatException e) {
        throw new RunRequestException(RunRequestException.Status.BAD_REQUEST,
            "wait must be a number of seconds (at most 60)");
      }
      desk.polled();
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(wait);
    List<Question> pending = desk.pending(runId);
    while (pending.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(200);
      desk.polled();
      pending = desk.pending(runId);
    }
    ObjectNode out = json.createObjectNode();
    out.put("approverConnected", desk.approverConnected());
    var list = out.putArray("questions");
    pending.forEach(p -> list.add(questionJson(p)));
    return out;
  }

  /** {@code POST /v1/approvals/{id}} with {@code {"decision": "allow"|"deny", "by", "reason"}}. */
  JsonNode answer(String id, JsonNode body) throws RunRequestException {
    if (body == null || !body.isObject() || !body.path("decision").isTextual()) {
      throw new RunRequestException(RunRequestException.Status.BAD_REQUEST,
          "the body must be {\"decision\": \"allow\" or \"deny\", \"by\": \"…\", \"reason\": \"…\"}");
    }
    String decision = body.get("decision").asText();
    if (!decision.equals("allow") && !decision.equals("deny")) {
      throw new RunRequestException(RunRequestException.Status.BAD_REQUEST,
          "decision must be allow or deny (got '" + decision + "')");
    }
    String by = text(body, "by");
    String reason = text(body, "reason");
    Optional<Question> answered = desk.answer(id, decision.equals("allow"), by, reason);
    if (answered.isEmpty()) {
      throw new RunRequestException(RunRequestException.Status.NOT_FOUND,
          "no pending question " + id + " (answered already, timed out, withdrawn when its run"
              + " ended, or never asked)");
    }
    ObjectNode out = json.createObjectNode();
    out.put("id", id);
    out.put("decision", decision);
    return out;
  }

  /** {@code GET /v1/approvals/stream}: server-sent events until the approver goes away. */
  void stream(Response response, Callback callback) {
    stream.serve(response, callback, () -> true);
  }

  ObjectNode questionJson(Question q) {
    return QuestionJson.of(json, q, text -> text);
  }

  private static String text(JsonNode body, String field) throws RunRequestException {
    JsonNode n = body.path(field);
    if (n.isMissingNode() || n.isNull()) {
      return null;
    }
    if (!n.isTextual() || n.asText().length() > 200) {
      throw new RunRequestException(RunRequestException.Status.BAD_REQUEST,
          "'" + field + "' must be a string of at most 200 characters");
    }
    return UntrustedText.oneLine(n.asText());
  }
}
