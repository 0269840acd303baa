package dev.pushgate.appliance.cli;

import static dev.pushgate.appliance.cli.Story.expect;

import ch.qos.logback.classic.Level;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pushgate.appliance.Appliance;
import dev.pushgate.appliance.DefaultRules;
import dev.pushgate.appliance.Settings;
import dev.pushgate.forge.ForgeRepositories;
import dev.pushgate.forge.LocalForge;
import dev.pushgate.appliance.logging.Redaction;
import dev.pushgate.appliance.runs.Runs;
import dev.pushgate.gateway.Gateway;
import dev.pushgate.gateway.GatewayConfig;
import dev.pushgate.gateway.api.ApiSentinel;
import dev.pushgate.types.RepoSlug;
import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code pushgate demo}: an appliance on a temporary data directory with its local forge, one
 * repository, one run, and the whole story told with the real git client, each step checked.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
        "Try pushgate: one agent run on a throw-away appliance, told with the real git client.",
        "Starts an appliance with its local forge on a temporary directory and walks through"
            + " one run: clone through a GitHub URL (through pushgate: the run holds no GitHub"
            + " token, only a sentinel GitHub refuses), push a branch (it lands), push"
            + " main (refused), an ask-first push approved by the demo's own approver, a force"
            + " push (refused), teardown, the run's credential refused, and the audit of refused"
            + " pushes.",
        "Needs git on the PATH; no network, no GitHub App. Exits 0 only when every step"
            + " behaved as described, 1 naming the step that did not."},
    footer = {"", "Examples:", "  pushgate demo",
        "  pushgate demo --keep       # keep the temporary directory to look around",
        "  pushgate demo --port 7171  # on a port of your choice (default: a free one)",
        "  pushgate demo --verbose    # with the appliance's own log lines (on stderr)"})
final class DemoCommand implements Callable<Integer> {
  static final String REPOSITORY = "acme/widget";
  static final String RULES = """
      {"push": [
        {"refs": "refs/heads/main", "decision": "deny", "reason": "push to main is denied"},
        {"refs": "refs/heads/release/*", "decision": "ask", "reason": "releases need a human"},
        {"refs": "refs/heads/**", "kinds": ["force"], "decision": "deny",
         "reason": "history is not rewritten here"}]}""";

  private static final String GIT_OUTPUT = "      ";
  private static final ObjectMapper JSON = new ObjectMapper();

  @Option(names = "--keep",
      description = "Keep the temporary directory (data directory and clone) and say where it is.")
  boolean keep;

  @Option(names = "--verbose", description = "Show the appliance's log lines (on stderr).")
  boolean verbose;

  @Option(names = "--port", paramLabel = "N",
      description = "The throw-away appliance's port on 127.0.0.1 (default: 0, a free one).")
  int port;

  @Override
  public Integer call() throws Exception {
    // UTF-8 whatever the locale says, so that ✔ and ✘ survive a POSIX locale.
    PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true,
        StandardCharsets.UTF_8);
    if (!verbose) {
      quietLogs();
    }
    Path tmp = Files.createTempDirectory("pushgate-demo-");
    Story.Outcome outcome;
    try (Demo demo = new Demo(tmp, out, port)) {
      outcome = demo.tell();
    } finally {
      if (keep) {
        out.println("kept " + tmp + " (the appliance is stopped; the clone is in "
            + tmp.resolve("widget") + ")");
      } else {
        deleteTree(tmp);
      }
    }
    return outcome.passed() ? 0 : 1;
  }

  /** The appliance's info lines would break up the story; its warnings and errors still show. */
  private static void quietLogs() {
    if (LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)
        instanceof ch.qos.logback.classic.Logger root) {
      root.setLevel(Level.WARN);
    }
  }

  /** The appliance's settings for the demo: its defaults, on {@code port} (0: a free one), with a short wait. */
  static Settings settings(Path dataDir, int port) {
    Settings d = Settings.defaults(dataDir);
    return new Settings(dataDir, "127.0.0.1", port, false, null, d.runTtl(), d.maxRunTtl(),
        d.refreshBefore(), d.forgeTokenLifetime(), d.maxPackBytes(), d.clientTimeout(),
        d.upstreamTimeout(), d.sweepInterval(), Duration.ofSeconds(5), d.sandbox(),
        Duration.ofSeconds(30), d.approverPollGrace(), d.hookAsk(), null, DefaultRules.NONE,
        d.writeTokensPerMinute(), d.limits(),
        d.passEnv(), d.auditSinks(), null, d.webhooks(), null);
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** The story and what it holds between steps. */
  private static final class Demo implements AutoCloseable {
    private final Path tmp;
    private final Path dataDir;
    private final Path home;
    private final Path work;
    private final PrintStream out;
    private final HttpClient http = HttpClient.newBuilder()
        .connectTimeout(Duration.ofSeconds(10)).build();

    private final int port;
    private Appliance appliance;
    private ControlSocket control;
    private Path forgeRepo;
    private String base;
    private String runId;
    private Map<String, String> runEnv = Map.of();

    Demo(Path tmp, PrintStream out, int port) throws IOException {
      this.tmp = tmp;
      this.port = port;
      this.dataDir = tmp.resolve("data");
      this.home = Files.createDirectories(tmp.resolve("home"));
      this.work = tmp.resolve("widget");
      this.out = out;
    }

    Story.Outcome tell() {
      out.println("pushgate demo: one agent run, told with the real git client");
      out.println();
      return new Story(out)
          .step("Start an appliance on a temporary data directory", this::start)
          .step("Create " + REPOSITORY + " on the local forge", this::createRepository)
          .step("Create a run for " + REPOSITORY + " (POST /v1/runs)", this::createRun)
          .step("Clone through the GitHub URL", this::cloneThroughGitHubUrl)
          .step("The run's GH_TOKEN is a sentinel: GitHub refuses it", this::sentinelRefused)
          .step("Push a branch: it lands", this::pushBranch)
          .step("Push main: refused by the run's rules", this::pushMain)
          .step("Push a release branch: held until the demo's approver allows it",
              this::pushRelease)
          .step("Force-push a rewritten branch: refused", this::forcePush)
          .step("Tear the run down (DELETE /v1/runs/{id})", this::teardown)
          .step("The run's credential is now refused", this::credentialRefused)
          .step("The audit of refused pushes (GET /v1/audit?decision=denied)", this::audit)
          .tell();
    }

    // --- the steps ---

    private String start() throws Exception {
      ByteArrayOutputStream lines = new ByteArrayOutputStream();
      try (PrintStream startup = new PrintStream(lines, true, StandardCharsets.UTF_8)) {
        appliance = Appliance.start(settings(dataDir, port), startup);
      }
      printIndented("    ", lines.toString(StandardCharsets.UTF_8));
      base = "http://127.0.0.1:" + appliance.port();
      control = ControlSocket.open(dataDir);
      int health = status(HttpRequest.newBuilder(URI.create(base + "/healthz")));
      expect(health == 200, "GET /healthz answered " + health + ", not 200");
      return "serving on 127.0.0.1:" + appliance.port() + (port == 0 ? " (a free port)" : "")
          + ", data in " + dataDir;
    }

    private String createRepository() throws Exception {
      ForgeRepositories.ForgeRepo repo = new ForgeRepositories(dataDir.resolve("forge"))
          .create(RepoSlug.parse(REPOSITORY));
      forgeRepo = repo.dir();
      String main = forgeRef("refs/heads/main");
      expect(main != null, "the new repository has no main branch");
      return REPOSITORY + " has one commit on main (" + shortId(main) + "), a README";
    }

    private String createRun() throws Exception {
      ObjectNode request = JSON.createObjectNode();
      request.put("workspaceId", "demo");
      request.put("sessionId", "demo-session");
      request.put("agentId", "demo-agent");
      request.put("mode", "chat");
      request.put("repository", REPOSITORY);
      request.set("rules", JSON.readTree(RULES));
      out.println("    the run's push rules:");
      for (JsonNode r : request.get("rules").get("push")) {
        List<String> kinds = new ArrayList<>();
        r.path("kinds").forEach(k -> kinds.add(k.asText()));
        String refs = r.get("refs").asText()
            + (kinds.isEmpty() ? "" : " (" + String.join(", ", kinds) + ")");
        out.printf("      %-30s %-5s %s%n", refs, r.get("decision").asText(),
            r.get("reason").asText());
      }
      ControlSocket.Answer answer = control.post("/v1/runs", request.toString());
      expect(answer.status() == 201, "POST /v1/runs answered " + answer.status() + ": "
          + (answer.body() == null ? "" : answer.body().path("error").asText()));
      JsonNode run = answer.body();
      runId = run.get("runId").asText();
      Map<String, String> env = new LinkedHashMap<>();
      run.get("env").fields().forEachRemaining(e -> env.put(e.getKey(), e.getValue().asText()));
      runEnv = Map.copyOf(env);
      out.println("    201: run " + runId + " until "
          + Instant.parse(run.get("expiresAt").asText()).truncatedTo(ChronoUnit.SECONDS)
          + ", with this environment for the agent:");
      env.forEach((k, v) -> out.println("      " + k + "=" + masked(v)));
      expect(env.containsKey("GIT_CONFIG_GLOBAL") && env.containsKey("GH_TOKEN"),
          "the run's environment lacks GIT_CONFIG_GLOBAL or GH_TOKEN");
      Git.Result config = git(tmp, "config", "--global", "--get-regexp", "^url\\.");
      expect(config.exit() == 0 && config.output().contains(".pushinsteadof https://github.com/")
              && config.output().contains(".insteadof https://github.com/"),
          "the run's git config does not send GitHub URLs to the gateway");
      expect(!config.output().contains("ghs_"), "the run's git config holds a token");
      // The demo tells the story of the default: with the boundary turned off, a run holds its
      // read token, and the steps below would not be true.
      expect(Runs.GITHUB_API_BOUNDARY, "the GitHub API boundary is off"
          + " (-Dpushgate.github-api-boundary=false): the run holds a real read token");
      expect(env.get("GH_TOKEN").startsWith(ApiSentinel.PREFIX),
          "the run's GH_TOKEN is not the sentinel of its GitHub API boundary");
      return "the run holds no GitHub token: GH_TOKEN is a sentinel that only pushgate's API"
          + " boundary takes, and its git config sends every GitHub fetch and push to the"
          + " gateway, with the run's credential";
    }

    private String cloneThroughGitHubUrl() throws Exception {
      Git.Result clone = git(tmp, "clone", "https://github.com/" + REPOSITORY + ".git",
          work.getFileName().toString());
      expect(clone.exit() == 0, "git clone exited " + clone.exit());
      String head = head();
      expect(head.equals(forgeRef("refs/heads/main")),
          "the clone's main is not the forge's main");
      return "fetched through the gateway, from its copy synced with the read token pushgate"
          + " keeps; git was given no token";
    }

    private String pushBranch() throws Exception {
      git(work, "checkout", "-q", "-b", "feature/hello").orFail();
      Files.writeString(work.resolve("hello.txt"), "hello from the agent\n");
      git(work, "add", "hello.txt").orFail();
      git(work, "commit", "-q", "-m", "Add hello.txt").orFail();
      Git.Result push = git(work, "push", "origin", "feature/hello");
      expect(push.exit() == 0, "git push exited " + push.exit());
      String landed = forgeRef("refs/heads/feature/hello");
      expect(head().equals(landed), "feature/hello is not on the forge");
      return "feature/hello landed on the forge at " + shortId(landed)
          + ", forwarded with a write token the agent never saw";
    }

    private String pushMain() throws Exception {
      String before = forgeRef("refs/heads/main");
      git(work, "checkout", "-q", "main").orFail();
      Files.writeString(work.resolve("README.md"), "edited straight on main\n");
      git(work, "commit", "-q", "-a", "-m", "Edit the README on main").orFail();
      Git.Result push = git(work, "push", "origin", "main");
      expect(push.exit() != 0, "git push of main succeeded");
      expect(push.output().contains("! [remote rejected] main -> main"
              + " (Control Center policy: push to main is denied)"),
          "git did not print the Control Center policy line for main");
      expect(before.equals(forgeRef("refs/heads/main")), "main moved on the forge");
      return "refused in git's own output; main on the forge is still " + shortId(before);
    }

    private String pushRelease() throws Exception {
      git(work, "branch", "release/1.0", "feature/hello").orFail();
      Git.Result push;
      String answered;
      try (Approver approver = new Approver()) {
        push = git(work, "push", "origin", "release/1.0");
        answered = approver.answered();
      }
      expect(answered != null, "the demo's approver never saw a question");
      out.println("    the demo's approver allowed " + answered);
      expect(push.output().contains("waiting for approval of create refs/heads/release/1.0"),
          "git did not show the push waiting for approval");
      expect(push.exit() == 0, "git push exited " + push.exit());
      String landed = forgeRef("refs/heads/release/1.0");
      expect(landed != null && landed.equals(forgeRef("refs/heads/feature/hello")),
          "release/1.0 is not on the forge");
      return "held open until approved, then forwarded in the same push: release/1.0 is at "
          + shortId(landed);
    }

    private String forcePush() throws Exception {
      String before = forgeRef("refs/heads/feature/hello");
      git(work, "checkout", "-q", "feature/hello").orFail();
      git(work, "commit", "-q", "--amend", "-m", "Add hello.txt, rewritten").orFail();
      Git.Result push = git(work, "push", "--force", "origin", "feature/hello");
      expect(push.exit() != 0, "git push --force succeeded");
      expect(push.output().contains("! [remote rejected] feature/hello -> feature/hello"
              + " (Control Center policy: history is not rewritten here)"),
          "git did not print the Control Center policy line for the force push");
      expect(before.equals(forgeRef("refs/heads/feature/hello")),
          "feature/hello was rewritten on the forge");
      return "refused; feature/hello on the forge is still " + shortId(before);
    }

    private String teardown() throws Exception {
      ControlSocket.Answer answer = control.delete("/v1/runs/" + runId);
      expect(answer.status() == 200, "DELETE answered " + answer.status());
      JsonNode t = answer.body();
      List<String> revoked = new ArrayList<>();
      t.get("revoked").forEach(c -> revoked.add(c.get("kind").asText()
          + (c.hasNonNull("repository") ? " (" + c.get("repository").asText() + ")" : "")));
      out.println("    200: revoked " + String.join(", ", revoked) + "; pending "
          + (t.get("pending").isEmpty() ? "none" : t.get("pending").toString())
          + "; git config removed: " + t.get("gitConfigRemoved").asBoolean());
      expect(t.get("pending").isEmpty(), "some credentials are still pending revocation");
      expect(revoked.stream().anyMatch(k -> k.startsWith("read")),
          "the read token is not among the revoked credentials");
      expect(t.get("gitConfigRemoved").asBoolean(), "the run's git config is still there");
      return "every credential of the run is revoked and confirmed";
    }

    /**
     * While the run is live: the token in its environment, used straight against the forge (which
     * stands in for GitHub) as a stolen token would be, reads nothing. Its API calls go through
     * the run's API boundary, which judges each one and swaps the sentinel for the real token.
     */
    private String sentinelRefused() throws Exception {
      String forgeUrl = base + LocalForge.CONTEXT_PATH + "/" + REPOSITORY + ".git";
      String sentinel = runEnv.get("GH_TOKEN");
      out.println("    git straight to the forge, with GH_TOKEN=" + masked(sentinel)
          + " as its credential:");
      Git.Result fetch = new Git(home, Map.of("GH_TOKEN", sentinel,
              "GIT_CONFIG_COUNT", "1",
              "GIT_CONFIG_KEY_0", "credential.helper",
              "GIT_CONFIG_VALUE_0", "!f() { test \"$1\" = get && printf"
                  + " 'username=x-access-token\\npassword=%s\\n' \"$GH_TOKEN\"; }; f"),
          out).run(tmp, "ls-remote", forgeUrl);
      String basic = Base64.getEncoder().encodeToString(("x-access-token:" + sentinel)
          .getBytes(StandardCharsets.UTF_8));
      int fetchStatus = status(HttpRequest.newBuilder(
              URI.create(forgeUrl + "/info/refs?service=git-upload-pack"))
          .header("Authorization", "Basic " + basic));
      out.println("    the same first request, without git:");
      out.println("      GET " + forgeUrl + "/info/refs?service=git-upload-pack");
      out.println("        Authorization: Basic x-access-token:" + masked(sentinel) + "  -> "
          + fetchStatus);
      expect(fetchStatus == 401, "the forge answered the run's GH_TOKEN " + fetchStatus);
      expect(fetch.exit() != 0, "git ls-remote with the run's GH_TOKEN succeeded");
      return "401 at the forge while the run is live: the run holds nothing GitHub takes; its"
          + " git goes through the gateway, its API calls through its API boundary, which"
          + " judges each and swaps the sentinel for the real token (docs/github-api.md)";
    }

    private String credentialRefused() throws Exception {
      String gatewayUrl = base + Gateway.CONTEXT_PATH + "/" + GatewayConfig.GITHUB_HOST + "/"
          + REPOSITORY + ".git";
      String credential = runEnv.get("PUSHGATE_RUN_TOKEN");

      out.println("    git with the run's gateway credential (Bearer " + masked(credential)
          + ") in its Authorization header:");
      Map<String, String> bearer = Map.of(
          "GIT_CONFIG_COUNT", "1",
          "GIT_CONFIG_KEY_0", "http.extraHeader",
          "GIT_CONFIG_VALUE_0", "Authorization: Bearer " + credential);
      Git.Result fetch = new Git(home, bearer, out).run(tmp, "ls-remote", gatewayUrl);
      Git.Result push = new Git(home, bearer, out)
          .run(work, "push", gatewayUrl, "feature/hello:refs/heads/after-teardown");
      out.println("    the same first requests, without git:");
      int fetchStatus = status(HttpRequest.newBuilder(
              URI.create(gatewayUrl + "/info/refs?service=git-upload-pack"))
          .header("Authorization", "Bearer " + credential));
      out.println("      GET " + gatewayUrl + "/info/refs?service=git-upload-pack");
      out.println("        Authorization: Bearer " + masked(credential) + "  -> " + fetchStatus);
      int pushStatus = status(HttpRequest.newBuilder(
              URI.create(gatewayUrl + "/info/refs?service=git-receive-pack"))
          .header("Authorization", "Bearer " + credential));
      out.println("      GET " + gatewayUrl + "/info/refs?service=git-receive-pack");
      out.println("        Authorization: Bearer " + masked(credential) + "  -> " + pushStatus);
      expect(fetchStatus == 401, "the gateway answered a fetch with the old run credential "
          + fetchStatus);
      expect(pushStatus == 401, "the gateway answered the old run credential " + pushStatus);
      expect(fetch.exit() != 0, "git ls-remote with the old run credential succeeded");
      expect(push.exit() != 0, "git push with the old run credential succeeded");
      expect(forgeRef("refs/heads/after-teardown") == null, "after-teardown is on the forge");
      return "401 at the gateway, for fetches and pushes alike: the run's only credential is"
          + " dead";
    }

    private String audit() throws Exception {
      JsonNode decisions = control.get("/v1/audit?decision=denied&runId=" + runId).orThrow()
          .get("decisions");
      List<String[]> rows = new ArrayList<>();
      rows.add(new String[] {"TIME", "REPOSITORY", "REF", "KIND", "CODE", "REASON"});
      DateTimeFormatter time = DateTimeFormatter.ofPattern("HH:mm:ss")
          .withZone(ZoneId.systemDefault());
      List<JsonNode> sorted = new ArrayList<>();
      decisions.forEach(sorted::add);
      sorted.sort(Comparator.comparing(d -> d.get("at").asText()));
      for (JsonNode d : sorted) {
        rows.add(new String[] {time.format(Instant.parse(d.get("at").asText())),
            d.get("repository").asText(), d.get("ref").asText(), d.get("kind").asText(),
            d.path("code").asText(""), d.path("reason").asText("")});
      }
      printTable(rows);
      expect(sorted.stream().anyMatch(d -> d.get("ref").asText().equals("refs/heads/main")
              && d.get("reason").asText().equals("push to main is denied")),
          "the refused push to main is not in the audit");
      expect(sorted.stream().anyMatch(d -> d.get("ref").asText().equals("refs/heads/feature/hello")
              && d.get("kind").asText().equals("force")
              && d.get("reason").asText().equals("history is not rewritten here")),
          "the refused force push is not in the audit");
      return sorted.size() + " refused pushes, each with its rule's reason";
    }

    // --- helpers ---

    private Git.Result git(Path dir, String... args) throws Exception {
      return new Git(home, runEnv, out).run(dir, args);
    }

    private String head() throws Exception {
      return new Git(home, runEnv, null).run(work, "rev-parse", "HEAD").orFail().output().strip();
    }

    private String forgeRef(String name) throws IOException {
      try (Repository r = new FileRepository(forgeRepo.toFile())) {
        Ref ref = r.exactRef(name);
        return ref == null ? null : ref.getObjectId().name();
      }
    }

    private int status(HttpRequest.Builder request) throws IOException, InterruptedException {
      return http.send(request.timeout(Duration.ofSeconds(30)).GET().build(),
          HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private void printIndented(String indent, String text) {
      for (String line : text.strip().split("\n")) {
        out.println(indent + line);
      }
    }

    private void printTable(List<String[]> rows) {
      int[] width = new int[rows.get(0).length];
      for (String[] row : rows) {
        for (int i = 0; i < row.length; i++) {
          width[i] = Math.max(width[i], row[i].length());
        }
      }
      for (String[] row : rows) {
        StringBuilder line = new StringBuilder("    ");
        for (int i = 0; i < row.length; i++) {
          line.append(i == row.length - 1 ? row[i]
              : String.format("%-" + width[i] + "s  ", row[i]));
        }
        out.println(line.toString().stripTrailing());
      }
    }

    /** The demo's approver: connected before the push starts, allows the first question. */
    private final class Approver implements AutoCloseable {
      private final CompletableFuture<String> answered = new CompletableFuture<>();
      private final Thread thread;
      private volatile boolean stopped;

      Approver() throws Exception {
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

    @Override
    public void close() throws Exception {
      if (control != null) {
        control.close();
      }
      if (appliance != null) {
        appliance.close();
      }
    }
  }

  static String shortId(String id) {
    return id == null ? "(none)" : id.substring(0, Math.min(7, id.length()));
  }

  /** {@code value} with a secret cut to its prefix: {@code ghs_…}, {@code pgr_…}. */
  static String masked(String value) {
    if (value != null && value.startsWith(ApiSentinel.PREFIX)) {
      return ApiSentinel.PREFIX + "\u2026"; // says whose it is; the random part is the secret
    }
    if (value == null || Redaction.redact(value).equals(value)) {
      return value;
    }
    int underscore = value.indexOf('_');
    return (underscore > 0 ? value.substring(0, underscore + 1) : "") + "\u2026";
  }

  /** The real git client with a run's environment and nothing of the host's git config. */
  private static final class Git {
    record Result(int exit, String output) {
      Result orFail() throws Story.Failed {
        expect(exit == 0, "git failed (exit " + exit + "): " + output.strip());
        return this;
      }
    }

    private final Path home;
    private final Map<String, String> env;
    private final PrintStream out;

    /** {@code out} null runs git without showing it. */
    Git(Path home, Map<String, String> env, PrintStream out) {
      this.home = home;
      this.env = env;
      this.out = out;
    }

    Result run(Path dir, String... args) throws Exception {
      List<String> cmd = OwnGit.argv(args);
      if (out != null) {
        List<String> shown = new ArrayList<>(List.of("git"));
        shown.addAll(List.of(args));
        out.println("    $ " + Redaction.redact(String.join(" ",
            shown.stream().map(Git::quoted).toList())));
      }
      ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
      Map<String, String> e = pb.environment();
      e.keySet().removeIf(k -> k.startsWith("GIT_") || k.equals("GH_TOKEN")
          || k.startsWith("PUSHGATE_"));
      e.put("HOME", home.toString());
      e.put("XDG_CONFIG_HOME", home.resolve(".config").toString());
      e.put(OwnGit.NO_SYSTEM_CONFIG, "1");
      e.put("GIT_TERMINAL_PROMPT", "0");
      e.put("LC_ALL", "C");
      e.put("GIT_AUTHOR_NAME", "Agent");
      e.put("GIT_AUTHOR_EMAIL", "agent@example.com");
      e.put("GIT_COMMITTER_NAME", "Agent");
      e.put("GIT_COMMITTER_EMAIL", "agent@example.com");
      e.putAll(env);
      Path output = Files.createTempFile("pushgate-demo-git", ".txt");
      try {
        pb.redirectErrorStream(true).redirectOutput(output.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        Process p;
        try {
          p = pb.start();
        } catch (IOException notFound) {
          throw new Story.Failed("cannot run git (" + notFound.getMessage()
              + "); install git and put it on the PATH");
        }
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
          p.destroyForcibly();
          throw new Story.Failed("git " + String.join(" ", args) + " did not finish in 60 s");
        }
        Result r = new Result(p.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
        if (out != null && !r.output().isBlank()) {
          for (String line : Redaction.redact(r.output().stripTrailing()).split("\n")) {
            out.println((GIT_OUTPUT + line).stripTrailing());
          }
        }
        return r;
      } finally {
        Files.deleteIfExists(output);
      }
    }

    /** An argument as a shell would need it to be typed. */
    static String quoted(String arg) {
      return arg.isEmpty() || arg.matches(".*[\\s'\"$`\\\\|&;()<>*?].*")
          ? "'" + arg.replace("'", "'\\''") + "'" : arg;
    }
  }
}
