package dev.pushgate.appliance.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.appliance.DataDirectory;
import dev.pushgate.appliance.audit.AuditRecordJson;
import dev.pushgate.appliance.control.AuditJson;
import dev.pushgate.appliance.control.ControlApi;
import dev.pushgate.appliance.store.AuditStore;
import dev.pushgate.appliance.store.ChainedRecord;
import dev.pushgate.appliance.store.Database;
import dev.pushgate.types.AuditEntry;
import dev.pushgate.types.RepoSlug;
import dev.pushgate.types.TerminalTable;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code pushgate audit}: the audited push decisions, from the running appliance or, when it is
 * stopped, straight from its database.
 */
@Command(
    name = "audit",
    mixinStandardHelpOptions = true,
    subcommands = AuditVerifyCommand.class,
    description = "List audited decisions, of pushes, of the Claude Code hook (allow, ask,"
        + " deny) and of the run's GitHub API calls: a table, or JSON lines with --json. With --run ID alone: that run's timeline,"
        + " everything audited of it in order (commands judged, pushes and their outcomes, API"
        + " calls, approvals, tokens issued and revoked). Works whether or not the appliance is running.",
    footer = {"", "Examples:", "  pushgate audit --refused --since 1h",
        "  pushgate audit --run run_0123abcd",
        "  pushgate audit --run run_0123abcd --decisions --json",
        "  pushgate audit verify --data-dir /var/lib/pushgate",
        "  pushgate audit --repo acme/widget --data-dir /var/lib/pushgate"})
final class AuditCommand implements Callable<Integer> {

  @Option(names = "--refused", description = "Only refused updates (by a rule, an approver, git or upstream).")
  boolean refused;

  @Option(names = "--run", paramLabel = "ID", description = "This run: its timeline, or only its"
      + " decisions with --decisions or another filter.")
  String run;

  @Option(names = "--repo", paramLabel = "OWNER/NAME", description = "Only this repository.")
  String repo;

  @Option(names = "--since", paramLabel = "AGE|INSTANT",
      description = "Only decisions newer than this: a duration (90s, 10m, 1h, 7d) or an ISO instant.")
  String since;

  @Option(names = "--decisions", description = "With --run: list the run's decisions, as without"
      + " --run, instead of its timeline.")
  boolean decisions;

  @Option(names = "--json", description = "One JSON object a line.")
  boolean json;

  @Option(names = "--limit", defaultValue = "1000", description = "At most this many. Default: ${DEFAULT-VALUE}")
  int limit;

  @Mixin AuditDatabase database;

  @Override
  public Integer call() throws Exception {
    if (run != null && !decisions && !refused && repo == null && since == null) {
      return printTimeline();
    }
    if (repo != null) {
      repo = RepoSlug.parse(repo).toString();
    }
    if (limit < 1 || limit > AuditStore.Query.MAX_LIMIT) {
      throw new IllegalArgumentException(
          "--limit must be a whole number from 1 to " + AuditStore.Query.MAX_LIMIT);
    }
    Instant from = since == null ? null : parseSince(since);
    if (from != null && (from.isBefore(AuditStore.Query.EARLIEST)
        || from.isAfter(AuditStore.Query.LATEST))) {
      throw new IllegalArgumentException("--since must lie between " + AuditStore.Query.EARLIEST
          + " and " + AuditStore.Query.LATEST);
    }
    if (database.url() == null) {
      // Both the live appliance and the stopped one's database are read from here.
      database.dataDir = DataDirectory.existing(database.dataDir);
    }
    List<JsonNode> rows = running() ? fromAppliance(from) : fromDatabase(from);
    if (json) {
      rows.forEach(r -> System.out.println(r.toString()));
    } else {
      printTable(rows);
    }
    return 0;
  }

  private boolean running() {
    if (database.url() != null) {
      return false;
    }
    if (!Files.exists(database.dataDir.resolve(DataDirectory.CONTROL_SOCKET))) {
      return false;
    }
    try (ControlSocket control = ControlSocket.open(database.dataDir)) {
      return control.get("/v1/runs").status() == 200;
    } catch (Exception e) {
      return false; // a socket file left by a crashed appliance
    }
  }

  private List<JsonNode> fromAppliance(Instant from) throws Exception {
    StringBuilder q = new StringBuilder("/v1/audit?limit=" + limit);
    if (refused) {
      q.append("&decision=denied");
    }
    if (run != null) {
      q.append("&runId=").append(URLEncoder.encode(run, StandardCharsets.UTF_8));
    }
    if (repo != null) {
      q.append("&repository=").append(URLEncoder.encode(repo, StandardCharsets.UTF_8));
    }
    if (from != null) {
      q.append("&since=").append(from);
    }
    try (ControlSocket control = ControlSocket.open(database.dataDir)) {
      List<JsonNode> out = new ArrayList<>();
      control.get(q.toString()).orThrow().get("decisions").forEach(out::add);
      return out;
    }
  }

  /**
   * The run's timeline, straight from the database (SQLite's WAL lets it be read while the
   * appliance writes): the chained records are what the timeline shows, and the control API
   * lists decisions only. A running appliance is asked first for the push outcomes it still owes
   * (written just after git's answer), so that a push answered already never reads as pending.
   */
  private int printTimeline() throws Exception {
    if (database.url() == null) {
      database.dataDir = DataDirectory.existing(database.dataDir);
      if (running()) {
        // The push outcomes the appliance owes are written after git's answer: wait for them.
        try (ControlSocket control = ControlSocket.open(database.dataDir)) {
          control.get(ControlApi.AUDIT_SETTLED_PATH).orThrow();
        }
      }
    }
    try (Database db = database.open()) {
      List<ChainedRecord> records = new AuditStore(db).timeline(run);
      if (json) {
        records.forEach(r -> System.out.println(AuditRecordJson.of(r).toString()));
      } else {
        System.out.print(Timeline.table(records));
      }
    }
    return 0;
  }

  private List<JsonNode> fromDatabase(Instant from) throws Exception {
    try (Database db = database.open()) {
      List<JsonNode> out = new ArrayList<>();
      for (AuditEntry r : new AuditStore(db).list(
          new AuditStore.Query(refused ? Boolean.TRUE : null, run, repo, from, limit))) {
        out.add(AuditJson.of(r));
      }
      return out;
    }
  }

  static Instant parseSince(String text) {
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      try {
        return Instant.now().minus(Units.duration(text));
      } catch (java.time.DateTimeException | ArithmeticException tooFar) {
        throw new IllegalArgumentException("--since " + text + " reaches back before any audit");
      }
    }
  }

  /** What happened upstream, and who approved the update when a person did. */
  private static String approved(JsonNode r) {
    String outcome = r.path("outcome").asText("");
    String reason = r.path("reason").asText("");
    return reason.contains("approved by ") ? outcome + "; " + reason : outcome;
  }

  private static void printTable(List<JsonNode> rows) {
    if (rows.isEmpty()) {
      System.out.println("no audited decision matches");
      return;
    }
    System.out.print(table(rows));
  }

  /**
   * The decisions for a terminal; CODE is the refusal's code (RULE_DENIED, …), as in --json. An
   * API call shows the call and what it acts on, its kind {@code api-call} and the action class.
   */
  static String table(List<JsonNode> rows) {
    TerminalTable t = new TerminalTable("TIME", "RUN", "REPOSITORY", "REF / COMMAND", "KIND",
        "DECISION", "CODE", "REASON / OUTCOME");
    for (JsonNode r : rows) {
      String ref = r.hasNonNull("command") ? r.get("command").asText()
          : shortRef(r.path("ref").asText(""));
      if (r.hasNonNull("call")) {
        ref = r.get("call").asText() + " " + ref;
      }
      String kind = r.hasNonNull("call") ? "api-call " + r.path("kind").asText("")
          : r.path("kind").asText("");
      String why = r.path("decision").asText().equals("denied") || !r.hasNonNull("outcome")
          ? r.path("reason").asText("") : approved(r);
      t.row(Times.at(r.path("at").asText()), r.path("runId").asText(""),
          r.path("repository").asText(""),
          ref, kind,
          r.path("decision").asText(""), r.path("code").asText("-"), why);
    }
    return t.toString();
  }

  private static String shortRef(String ref) {
    return ref.startsWith("refs/heads/") ? ref.substring(11) : ref;
  }
}
