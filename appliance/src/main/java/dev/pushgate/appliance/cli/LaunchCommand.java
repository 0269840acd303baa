package dev.pushgate.appliance.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pushgate.sandbox.RefusalReason;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.eclipse.jetty.client.InputStreamResponseListener;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.http.HttpMethod;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code pushgate launch}: runs COMMAND in an existing run's sandbox, launched by the appliance
 * ({@code POST /v1/runs/{id}/launch}); a client of that stream and nothing more.
 */
@Command(
    name = "launch",
    mixinStandardHelpOptions = true,
    description = {
        "Run COMMAND in the sandbox of RUN_ID, a run created with POST /v1/runs on the control"
            + " socket: the appliance launches it under the run's plan with the run's environment"
            + " (as pushgate exec does), and its output and the sandbox's events are streamed"
            + " here. Exits with COMMAND's code; 125 when it could not be launched.",
        "COMMAND reads no input. It is killed when this command is interrupted and when the run"
            + " is torn down. The run itself stays: tear it down with DELETE /v1/runs/RUN_ID."},
    footer = {"", "Examples:",
        "  pushgate launch run_39e0ee374365f4df1a8ba1d5 -- make test",
        "  pushgate launch --workdir /srv/agents/a1/work/sub run_39e0… -- git status"})
final class LaunchCommand implements Callable<Integer> {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** What a run id looks like; anything else never reaches the request line. */
  private static final Pattern RUN_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");

  @Mixin RunningDataDir dataDir;

  @Option(names = "--workdir", paramLabel = "DIR",
      description = "Start COMMAND in this directory, the run's workdir or one inside it."
          + " Default: the run's workdir.")
  Path workdir;

  @Parameters(index = "0", paramLabel = "RUN_ID", description = "The run, as POST /v1/runs named it.")
  String runId;

  @Parameters(index = "1..*", arity = "1..*", paramLabel = "COMMAND",
      description = "The command and its arguments, after --.")
  List<String> command;

  private final PrintStream out = Stdio.out();
  private final PrintStream err = Stdio.err();

  @Override
  public Integer call() {
    try {
      return launch();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return fail("interrupted");
    } catch (Exception e) {
      return fail(Failure.message(e));
    }
  }

  private int launch() throws Exception {
    if (!RUN_ID.matcher(runId).matches()) {
      return fail("not a run id: " + dev.pushgate.types.UntrustedText.printable(runId));
    }
    ObjectNode body = JSON.createObjectNode();
    ArrayNode argv = body.putArray("command");
    command.forEach(argv::add);
    if (workdir != null) {
      body.put("workdir", workdir.toAbsolutePath().normalize().toString());
    }
    try (ControlSocket control = dataDir.control()) {
      InputStreamResponseListener listener = new InputStreamResponseListener();
      control.stream("/v1/runs/" + runId + "/launch").method(HttpMethod.POST)
          .body(new StringRequestContent("application/json", JSON.writeValueAsString(body)))
          .send(listener);
      Response response;
      try {
        response = listener.get(60, TimeUnit.SECONDS);
      } catch (java.util.concurrent.ExecutionException e) {
        return fail("the appliance does not answer on its control socket in " + dataDir.path + " ("
            + Failure.message(e.getCause()) + "); is it running?");
      }
      BufferedReader lines = new BufferedReader(
          new InputStreamReader(listener.getInputStream(), StandardCharsets.UTF_8));
      if (response.getStatus() != 200) {
        return refused(response.getStatus(), lines);
      }
      return follow(lines);
    }
  }

  /** The stream, line by line, until the command's exit. */
  private int follow(BufferedReader lines) throws Exception {
    for (String line; (line = lines.readLine()) != null; ) {
      if (line.isBlank()) {
        continue;
      }
      JsonNode n = JSON.readTree(line);
      switch (n.path("type").asText()) {
        case "stdout" -> {
          out.print(n.path("data").asText());
          out.flush();
        }
        case "stderr" -> {
          err.print(n.path("data").asText());
          err.flush();
        }
        case "started" -> {
          err.println("pushgate: launched in run " + n.path("runId").asText() + " in "
              + n.path("workdir").asText() + " (" + n.path("backend").asText() + ", pid "
              + n.path("pid").asText() + ") under " + n.path("sandbox").asText());
          n.path("weakenings").forEach(w -> err.println("pushgate: weakened: " + w.asText()));
        }
        case "event" -> event(n);
        case "exit" -> {
          if (n.hasNonNull("error")) {
            err.println("pushgate: " + n.get("error").asText());
          }
          return n.path("code").asInt(ExecCommand.FAILED);
        }
        default -> {
          // heartbeat, and whatever a later appliance adds: nothing to show
        }
      }
    }
    return fail("the appliance ended the stream before the command's exit code");
  }

  /** A sandbox event, as {@code pushgate exec} reports it. */
  private void event(JsonNode n) {
    switch (n.path("event").asText()) {
      case "violation" -> {
        err.println("pushgate: sandbox violation: "
            + RefusalReason.subject(n.path("action").asText(), n.path("target").asText()));
        if (n.hasNonNull("detail")) {
          err.println("pushgate:   " + n.get("detail").asText());
        }
        if (n.hasNonNull("reason")) {
          err.println("pushgate:   why: " + n.get("reason").asText());
        }
      }
      case "killed" -> err.println("pushgate: killed: " + n.path("reason").asText());
      default -> err.println("pushgate: sandbox event: " + n);
    }
  }

  private int refused(int status, BufferedReader lines) throws Exception {
    StringBuilder text = new StringBuilder();
    for (String line; (line = lines.readLine()) != null && text.length() < (1 << 20); ) {
      text.append(line).append('\n');
    }
    JsonNode answer;
    try {
      answer = JSON.readTree(text.toString());
    } catch (Exception e) {
      answer = null;
    }
    if (answer == null || !answer.hasNonNull("error")) {
      return fail("the control API answered " + status);
    }
    err.println("pushgate: " + answer.get("error").asText());
    for (JsonNode way : answer.path("waysOut")) {
      err.println("pushgate:   - " + way.asText());
    }
    return ExecCommand.FAILED;
  }

  private int fail(String message) {
    err.println("pushgate: " + message);
    return ExecCommand.FAILED;
  }
}
