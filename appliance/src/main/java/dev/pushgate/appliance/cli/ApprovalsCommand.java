package dev.pushgate.appliance.cli;

import dev.pushgate.types.UntrustedText;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pushgate.appliance.DataDirectory;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.client.InputStreamResponseListener;
import org.eclipse.jetty.client.Response;
import dev.pushgate.approvals.Question;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code pushgate approvals}: see and answer "ask first" questions of a running appliance. */
@Command(
    name = "approvals",
    mixinStandardHelpOptions = true,
    description = "List pending ask-first questions, answer one, or watch them as an approver.",
    subcommands = {ApprovalsCommand.Answer.class, ApprovalsCommand.Watch.class,
        ApprovalsCommand.Open.class},
    footer = {"", "Examples:", "  pushgate approvals --data-dir ./pushgate-data",
        "  pushgate approvals answer q_1a2b3c4d5e6f7a8b allow --by alice",
        "  pushgate approvals answer q_1a2b3c4d5e6f7a8b deny --by alice --reason 'not before review'",
        "  pushgate approvals watch --data-dir ./pushgate-data",
        "  pushgate approvals open --data-dir ./pushgate-data"})
final class ApprovalsCommand implements Callable<Integer> {
  @Mixin RunningDataDir dataDir;

  @Mixin JsonListing listing;

  @Override
  public Integer call() throws Exception {
    try (ControlSocket control = dataDir.control()) {
      listing.print(control.get("/v1/approvals").orThrow().get("questions"),
          "no pending question", ApprovalsCommand::lines);
    }
    return 0;
  }

  /** The questions for a terminal, a line each. */
  static String lines(JsonNode questions) {
    StringBuilder s = new StringBuilder();
    questions.forEach(q -> s.append(line(q)).append('\n'));
    return s.toString();
  }

  /** One question for a terminal; whatever came from an agent is escaped again here. */
  static String line(JsonNode q) {
    StringBuilder s = new StringBuilder(UntrustedText.visible(q.get("id").asText())).append("  ")
        .append(UntrustedText.visible(q.get("summary").asText())).append("  (run ")
        .append(UntrustedText.visible(q.get("runId").asText())).append("; rule: ")
        .append(UntrustedText.visible(q.path("reason").asText())).append("; until ")
        .append(UntrustedText.visible(Times.atAndRelative(q.get("deadline").asText(),
            java.time.Instant.now()))).append(')');
    for (JsonNode c : q.path("commits")) {
      s.append("\n    ").append(UntrustedText.visible(c.asText()));
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

    @Mixin RunningDataDir dataDir;

    @Override
    public Integer call() throws Exception {
      ObjectNode body = new ObjectMapper().createObjectNode();
      body.put("decision", decision);
      body.put("by", by != null ? by : System.getProperty("user.name", "operator"));
      if (reason != null) {
        body.put("reason", reason);
      }
      try (ControlSocket control = dataDir.control()) {
        control.post("/v1/approvals/" + id, body.toString()).orThrow();
      }
      System.out.println(id + ": " + decision);
      return 0;
    }
  }

  @Command(name = "open", mixinStandardHelpOptions = true,
      description = "Print a one-time sign-in link to the approvals web page, served by the"
          + " appliance on its loopback port: open it in a browser on this machine. The link works"
          + " once, for a few minutes; anyone holding it until then can sign in, so do not share"
          + " it (docs/approvals.md).",
      footer = {"", "Example:", "  pushgate approvals open --data-dir /var/lib/pushgate"})
  static final class Open implements Callable<Integer> {
    @Mixin RunningDataDir dataDir;

    @Override
    public Integer call() throws Exception {
      JsonNode link;
      try (ControlSocket control = dataDir.control()) {
        link = control.post(dev.pushgate.appliance.control.ControlApi.SIGNIN_LINK_PATH, "{}")
            .orThrow();
      }
      System.out.println(link.get("url").asText());
      System.err.println("Open this link in a browser on this machine. It signs in once and works"
          + " until " + Times.atAndRelative(link.get("expiresAt").asText(),
              java.time.Instant.now()) + "; keep it to yourself.");
      return 0;
    }
  }

  @Command(name = "watch", mixinStandardHelpOptions = true,
      description = "Stay connected as an approver and print questions as they come"
          + " (while nobody is connected, ask-first pushes are denied at once). Says"
          + " \"connected\" only once the appliance counts this watch as an approver; exits 1"
          + " when the appliance stops or the connection is lost.",
      footer = {"", "Example:", "  pushgate approvals watch --data-dir /var/lib/pushgate"})
  static final class Watch implements Callable<Integer> {
    /** The comment the appliance writes once the stream counts as a connected approver. */
    static final String CONNECTED = ": connected";

    @Mixin RunningDataDir dataDir;

    @Option(names = "--json", description = "One JSON object a line: {\"event\": \"connected\"},"
        + " then each question (event question) and how each ended (event ended).")
    boolean jsonLines;

    @Override
    public Integer call() throws Exception {
      ObjectMapper json = new ObjectMapper();
      try (ControlSocket control = dataDir.control()) {
        InputStreamResponseListener listener = new InputStreamResponseListener();
        control.stream("/v1/approvals/stream").send(listener);
        Response response = listener.get(30, TimeUnit.SECONDS);
        if (response.getStatus() != 200) {
          return gone("the appliance refused the approvals stream (HTTP "
              + response.getStatus() + ")");
        }
        BufferedReader events = new BufferedReader(
            new InputStreamReader(listener.getInputStream(), StandardCharsets.UTF_8));
        // Before this line the appliance does not count us: a push asked then would be refused.
        if (!CONNECTED.equals(events.readLine())) {
          return gone("the appliance did not confirm the approvals stream");
        }
        System.out.println(jsonLines ? "{\"event\":\"connected\"}"
            : "connected as an approver; answer with: pushgate approvals answer ID allow|deny");
        String event = null;
        for (String line; (line = events.readLine()) != null; ) {
          if (line.startsWith("event: ")) {
            event = line.substring(7);
          } else if (line.startsWith("data: ") && event != null) {
            if (event.equals("closed")) {
              return gone("the appliance is stopping");
            }
            JsonNode data = json.readTree(line.substring(6));
            if (jsonLines && data instanceof ObjectNode o
                && (event.equals("question") || event.equals("ended"))) {
              ObjectNode out = json.createObjectNode().put("event", event);
              out.setAll(o);
              System.out.println(JsonLines.of(out));
            } else if (event.equals("question")) {
              System.out.println("? " + line(data));
            } else if (event.equals("ended")) {
              System.out.println(ended(data));
            }
            event = null;
          }
        }
        return gone("the appliance closed the stream");
      } catch (DataDirectory.UntrustedDataDirectoryException e) {
        throw e; // not a lost connection: there was none to lose, and the reason says why
      } catch (IOException | TimeoutException | ExecutionException e) {
        return gone("lost the connection to the appliance (" + rootMessage(e) + ")");
      }
    }

    /** How a question ended, one line; what an approver typed is escaped like the rest. */
    static String ended(JsonNode data) {
      return "  " + UntrustedText.visible(data.path("id").asText("?")) + " "
          + UntrustedText.visible(data.path("outcome").asText("?"))
          + (data.hasNonNull("by") ? " by " + UntrustedText.visible(data.get("by").asText()) : "");
    }

    private static int gone(String why) {
      System.out.flush();
      System.err.println("pushgate: " + why + "; no longer connected as an approver");
      return 1;
    }

    private static String rootMessage(Throwable e) {
      Throwable t = e;
      while (t.getCause() != null && t.getCause() != t) {
        if (endOfStream(t)) {
          break;
        }
        t = t.getCause();
      }
      // Jetty's end-of-stream exceptions carry a dump of its connection objects as a message.
      if (endOfStream(t)) {
        return "the appliance closed the connection";
      }
      return Failure.message(t);
    }

    private static boolean endOfStream(Throwable t) {
      // Jetty's EofException is an EOFException
      return t instanceof java.io.EOFException
          || t instanceof java.nio.channels.ClosedChannelException;
    }
  }
}
