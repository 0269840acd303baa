package dev.pushgate.appliance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.eclipse.jetty.client.InputStreamResponseListener;
import dev.pushgate.appliance.approvals.Question;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code pushgate approvals}: see and answer "ask first" questions of a running appliance. */
@Command(
    name = "approvals",
    mixinStandardHelpOptions = true,
    description = "List pending ask-first questions, answer one, or watch them as an approver.",
    subcommands = {ApprovalsCommand.Answer.class, ApprovalsCommand.Watch.class},
    footer = {"", "Examples:", "  pushgate approvals --data-dir ./pushgate-data",
        "  pushgate approvals answer q_1a2b3c4d5e6f7a8b allow --by alice",
        "  pushgate approvals answer q_1a2b3c4d5e6f7a8b deny --by alice --reason 'not before review'",
        "  pushgate approvals watch --data-dir ./pushgate-data"})
final class ApprovalsCommand implements Callable<Integer> {
  @Option(names = "--data-dir", defaultValue = "pushgate-data",
      description = "The running appliance's data directory. Default: ${DEFAULT-VALUE}")
  Path dataDir;

  @Override
  public Integer call() throws Exception {
    try (ControlSocket control = ControlSocket.open(dataDir)) {
      JsonNode questions = control.get("/v1/approvals").orThrow().get("questions");
      if (questions.isEmpty()) {
        System.out.println("no pending question");
      }
      for (JsonNode q : questions) {
        System.out.println(line(q));
      }
    }
    return 0;
  }

  /** One question for a terminal; whatever came from an agent is escaped again here. */
  static String line(JsonNode q) {
    StringBuilder s = new StringBuilder(Question.printable(q.get("id").asText())).append("  ")
        .append(Question.printable(q.get("summary").asText())).append("  (run ")
        .append(Question.printable(q.get("runId").asText())).append("; rule: ")
        .append(Question.printable(q.path("reason").asText())).append("; until ")
        .append(Question.printable(q.get("deadline").asText())).append(')');
    for (JsonNode c : q.path("commits")) {
      s.append("\n    ").append(Question.printable(c.asText()));
    }
    return s.toString();
  }

  @Command(name = "answer", mixinStandardHelpOptions = true,
      description = "Answer a pending question: allow or deny.",
      footer = {"", "Examples:", "  pushgate approvals answer q_1a2b3c4d5e6f7a8b allow --by alice",
          "  pushgate approvals answer q_1a2b3c4d5e6f7a8b deny --reason 'wait for the review'"})
  static final class Answer implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "ID", description = "The question's id (q_…).")
    String id;

    @Parameters(index = "1", paramLabel = "allow|deny", description = "The answer.")
    String decision;

    @Option(names = "--by", description = "Who answers (kept in the audit). Default: $USER")
    String by;

    @Option(names = "--reason", description = "Why, shown to the person pushing when denied.")
    String reason;

    @Option(names = "--data-dir", defaultValue = "pushgate-data",
        description = "The running appliance's data directory. Default: ${DEFAULT-VALUE}")
    Path dataDir;

    @Override
    public Integer call() throws Exception {
      ObjectNode body = new ObjectMapper().createObjectNode();
      body.put("decision", decision);
      body.put("by", by != null ? by : System.getProperty("user.name", "operator"));
      if (reason != null) {
        body.put("reason", reason);
      }
      try (ControlSocket control = ControlSocket.open(dataDir)) {
        control.post("/v1/approvals/" + id, body.toString()).orThrow();
      }
      System.out.println(id + ": " + decision);
      return 0;
    }
  }

  @Command(name = "watch", mixinStandardHelpOptions = true,
      description = "Stay connected as an approver and print questions as they come"
          + " (while nobody is connected, ask-first pushes are denied at once).",
      footer = {"", "Example:", "  pushgate approvals watch --data-dir /var/lib/pushgate"})
  static final class Watch implements Callable<Integer> {
    @Option(names = "--data-dir", defaultValue = "pushgate-data",
        description = "The running appliance's data directory. Default: ${DEFAULT-VALUE}")
    Path dataDir;

    @Override
    public Integer call() throws Exception {
      ObjectMapper json = new ObjectMapper();
      try (ControlSocket control = ControlSocket.open(dataDir)) {
        InputStreamResponseListener listener = new InputStreamResponseListener();
        control.stream("/v1/approvals/stream").send(listener);
        BufferedReader events = new BufferedReader(
            new InputStreamReader(listener.getInputStream(), StandardCharsets.UTF_8));
        System.out.println("connected as an approver; answer with: pushgate approvals answer ID allow|deny");
        String event = null;
        for (String line; (line = events.readLine()) != null; ) {
          if (line.startsWith("event: ")) {
            event = line.substring(7);
          } else if (line.startsWith("data: ") && event != null) {
            JsonNode data = json.readTree(line.substring(6));
            System.out.println(event.equals("question") ? "? " + line(data)
                : "  " + data.get("id").asText() + " " + data.get("outcome").asText()
                    + (data.hasNonNull("by") ? " by " + data.get("by").asText() : ""));
          }
        }
      }
      return 0;
    }
  }
}
