package dev.pushgate.appliance.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code pushgate runs}: the live runs of a running appliance, and ending one. */
@Command(
    name = "runs",
    mixinStandardHelpOptions = true,
    description = "List live runs: repository, mode, sandbox backend, expiry. Never a secret.",
    subcommands = {RunsCommand.Stop.class},
    footer = {"", "Examples:", "  pushgate runs --data-dir /var/lib/pushgate",
        "  pushgate runs stop run_0123abcd4567ef8901234567"})
final class RunsCommand implements Callable<Integer> {
  @Option(names = "--data-dir", defaultValue = "pushgate-data",
      description = "The running appliance's data directory. Default: ${DEFAULT-VALUE}")
  Path dataDir;

  @Override
  public Integer call() throws Exception {
    try (ControlSocket control = ControlSocket.open(dataDir)) {
      JsonNode runs = control.get("/v1/runs").orThrow().get("runs");
      if (runs.isEmpty()) {
        System.out.println("no live run");
        return 0;
      }
      System.out.printf("%-28s  %-24s  %-11s  %-8s  %-14s  %s%n", "RUN", "REPOSITORY", "MODE",
          "BACKEND", "WORKSPACE", "EXPIRES");
      for (JsonNode r : runs) {
        System.out.printf("%-28s  %-24s  %-11s  %-8s  %-14s  %s%n", r.get("runId").asText(),
            r.get("repository").asText(), r.get("mode").asText(),
            r.path("backend").asText("none"), r.get("workspaceId").asText(),
            r.get("expiresAt").asText());
      }
    }
    return 0;
  }

  @Command(name = "stop", mixinStandardHelpOptions = true,
      description = "End a run now: revoke its read token, its write tokens and its gateway"
          + " credential, and remove its git config.",
      footer = {"", "Example:", "  pushgate runs stop run_0123abcd4567ef8901234567"})
  static final class Stop implements Callable<Integer> {
    @Parameters(paramLabel = "ID", description = "The run to end.")
    String id;

    @Option(names = "--data-dir", defaultValue = "pushgate-data",
        description = "The running appliance's data directory. Default: ${DEFAULT-VALUE}")
    Path dataDir;

    @Override
    public Integer call() throws Exception {
      try (ControlSocket control = ControlSocket.open(dataDir)) {
        JsonNode t = control.delete("/v1/runs/" + id).orThrow();
        System.out.println(id + " ended: " + t.get("revoked").size() + " credential(s) revoked"
            + (t.get("pending").isEmpty() ? ""
                : ", " + t.get("pending").size() + " revocation(s) pending (retried until confirmed)"));
        return t.get("pending").isEmpty() ? 0 : 3;
      }
    }
  }
}
