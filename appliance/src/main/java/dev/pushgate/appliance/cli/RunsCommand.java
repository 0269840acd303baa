package dev.pushgate.appliance.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.types.TerminalTable;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code pushgate runs}: the live runs of a running appliance, and ending one. */
@Command(
    name = "runs",
    mixinStandardHelpOptions = true,
    description = "List live runs: repository, mode, sandbox backend, start and expiry; or one"
        + " JSON object a line with --json. Never a secret.",
    subcommands = {RunsCommand.Stop.class},
    footer = {"", "Examples:", "  pushgate runs --data-dir /var/lib/pushgate",
        "  pushgate runs --json | jq -r .runId",
        "  pushgate runs stop run_0123abcd4567ef8901234567"})
final class RunsCommand implements Callable<Integer> {
  @Mixin RunningDataDir dataDir;

  @Mixin JsonListing listing;

  @Override
  public Integer call() throws Exception {
    try (ControlSocket control = dataDir.control()) {
      listing.print(control.get("/v1/runs").orThrow().get("runs"), "no live run",
          runs -> table(runs, Instant.now()));
    }
    return 0;
  }

  /** The runs for a terminal: the backend the run was launched with, times to read. */
  static String table(JsonNode runs, Instant now) {
    TerminalTable t = new TerminalTable("RUN", "REPOSITORY", "MODE", "BACKEND", "WORKSPACE",
        "STARTED", "EXPIRES");
    for (JsonNode r : runs) {
      t.row(r.path("runId").asText(), r.path("repository").asText(), r.path("mode").asText(),
          r.path("backend").asText("none"), r.path("workspaceId").asText(),
          r.hasNonNull("createdAt") ? Times.relative(Instant.parse(r.get("createdAt").asText()),
              now) : "",
          Times.atAndRelative(r.path("expiresAt").asText(), now));
    }
    return t.toString();
  }

  @Command(name = "stop", mixinStandardHelpOptions = true,
      description = "End a run now: revoke its read token, its write tokens and its gateway"
          + " credential, and remove its git config.",
      footer = {"", "Example:", "  pushgate runs stop run_0123abcd4567ef8901234567"})
  static final class Stop implements Callable<Integer> {
    @Parameters(paramLabel = "ID", description = "The run to end.")
    String id;

    @Mixin RunningDataDir dataDir;

    @Override
    public Integer call() throws Exception {
      try (ControlSocket control = dataDir.control()) {
        JsonNode t = control.delete("/v1/runs/" + id).orThrow();
        System.out.println(id + " ended: " + t.get("revoked").size() + " credential(s) revoked"
            + (t.get("pending").isEmpty() ? ""
                : ", " + t.get("pending").size() + " revocation(s) pending (retried until confirmed)"));
        return t.get("pending").isEmpty() ? 0 : 3;
      }
    }
  }
}
