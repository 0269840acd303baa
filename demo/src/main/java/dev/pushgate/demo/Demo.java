package dev.pushgate.demo;

import static dev.pushgate.demo.Story.expect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pushgate.forge.ForgeRepositories;
import dev.pushgate.forge.LocalForge;
import dev.pushgate.gateway.Gateway;
import dev.pushgate.gateway.GatewayConfig;
import dev.pushgate.gateway.api.ApiSentinel;
import dev.pushgate.types.Redaction;
import dev.pushgate.types.RepoSlug;
import dev.pushgate.types.TerminalTable;
import java.io.ByteArrayOutputStream;
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
import java.util.stream.Stream;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;

/**
 * {@code pushgate demo}'s story: an appliance on a temporary data directory with its local forge,
 * one repository, one run, told with the real git client, each step checked. The appliance is
 * the {@link DemoHost}'s; the demo only drives it from outside, as a newcomer would.
 */
public final class Demo implements AutoCloseable {
  static final String REPOSITORY = "acme/widget";
  static final String RULES = """
      {"push": [
        {"refs": "refs/heads/main", "decision": "deny", "reason": "push to main is denied"},
        {"refs": "refs/heads/release/*", "decision": "ask", "reason": "releases need a human"},
        {"refs": "refs/heads/**", "kinds": ["force"], "decision": "deny",
         "reason": "history is not rewritten here"}]}""";

  private static final ObjectMapper JSON = new ObjectMapper();

  private final DemoHost host;
  private final Path tmp;
  private final Path dataDir;
  private final Path home;
  private final Path work;
  private final PrintStream out;
  private final HttpClient http = HttpClient.newBuilder()
      .connectTimeout(Duration.ofSeconds(10)).build();

  private final int port;
  private DemoHost.Running appliance;
  private DemoHost.ControlApi control;
  private Path forgeRepo;
  private String base;
  private String runId;
  private Map<String, String> runEnv = Map.of();

  /** The story on {@code tmp} (a fresh directory), told to {@code out}; {@code port} 0: free. */
  Demo(DemoHost host, Path tmp, PrintStream out, int port) throws IOException {
    this.host = host;
    this.tmp = tmp;
    this.port = port;
    this.dataDir = tmp.resolve("data");
    this.home = Files.createDirectories(tmp.resolve("home"));
    this.work = tmp.resolve("widget");
    this.out = out;
  }

  /**
   * Tells the story once on a fresh temporary directory, then removes it, or with {@code keep}
   * keeps it and says where it is.
   */
  public static Story.Outcome tellOnce(DemoHost host, PrintStream out, int port, boolean keep)
      throws Exception {
    Path tmp = Files.createTempDirectory("pushgate-demo-");
    try (Demo demo = new Demo(host, tmp, out, port)) {
      return demo.tell();
    } finally {
      if (keep) {
        out.println("kept " + tmp + " (the appliance is stopped; the clone is in "
            + tmp.resolve("widget") + ")");
      } else {
        deleteTree(tmp);
      }
    }
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

  /** Tells every step until one misbehaves; the outcome says which. */
  public Story.Outcome tell() {
    out.println("pushgate demo: one agent run, told with the real git client");
    out.println();
    return new Story(out, host::failure)
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
      appliance = host.start(dataDir, port, startup);
    }
    printIndented("    ", lines.toString(StandardCharsets.UTF_8));
    base = "http://127.0.0.1:" + appliance.port();
    control = appliance.control();
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
    DemoHost.Answer answer = control.post("/v1/runs", request.toString());
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
    DemoGit.Result config = git(tmp, "config", "--global", "--get-regexp", "^url\\.");
    expect(config.exit() == 0 && config.output().contains(".pushinsteadof https://github.com/")
            && config.output().contains(".insteadof https://github.com/"),
        "the run's git config does not send GitHub URLs to the gateway");
    expect(!config.output().contains("ghs_"), "the run's git config holds a token");
    // The demo tells the story of the default: with the boundary turned off, a run holds its
    // read token, and the steps below would not be true.
    expect(host.githubApiBoundary(), "the GitHub API boundary is off"
        + " (-Dpushgate.github-api-boundary=false): the run holds a real read token");
    expect(env.get("GH_TOKEN").startsWith(ApiSentinel.PREFIX),
        "the run's GH_TOKEN is not the sentinel of its GitHub API boundary");
    return "the run holds no GitHub token: GH_TOKEN is a sentinel that only pushgate's API"
        + " boundary takes, and its git config sends every GitHub fetch and push to the"
        + " gateway, with the run's credential";
  }

  private String cloneThroughGitHubUrl() throws Exception {
    DemoGit.Result clone = git(tmp, "clone", "https://github.com/" + REPOSITORY + ".git",
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
    DemoGit.Result push = git(work, "push", "origin", "feature/hello");
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
    DemoGit.Result push = git(work, "push", "origin", "main");
    expect(push.exit() != 0, "git push of main succeeded");
    expect(push.output().contains("! [remote rejected] main -> main"
            + " (Control Center policy: push to main is denied)"),
        "git did not print the Control Center policy line for main");
    expect(before.equals(forgeRef("refs/heads/main")), "main moved on the forge");
    return "refused in git's own output; main on the forge is still " + shortId(before);
  }

  private String pushRelease() throws Exception {
    git(work, "branch", "release/1.0", "feature/hello").orFail();
    DemoGit.Result push;
    String answered;
    try (DemoApprover approver = new DemoApprover(control, runId)) {
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
    DemoGit.Result push = git(work, "push", "--force", "origin", "feature/hello");
    expect(push.exit() != 0, "git push --force succeeded");
    expect(push.output().contains("! [remote rejected] feature/hello -> feature/hello"
            + " (Control Center policy: history is not rewritten here)"),
        "git did not print the Control Center policy line for the force push");
    expect(before.equals(forgeRef("refs/heads/feature/hello")),
        "feature/hello was rewritten on the forge");
    return "refused; feature/hello on the forge is still " + shortId(before);
  }

  private String teardown() throws Exception {
    DemoHost.Answer answer = control.delete("/v1/runs/" + runId);
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
    DemoGit.Result fetch = gitWith(Map.of("GH_TOKEN", sentinel,
            "GIT_CONFIG_COUNT", "1",
            "GIT_CONFIG_KEY_0", "credential.helper",
            "GIT_CONFIG_VALUE_0", "!f() { test \"$1\" = get && printf"
                + " 'username=x-access-token\\npassword=%s\\n' \"$GH_TOKEN\"; }; f"))
        .run(tmp, "ls-remote", forgeUrl);
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
    DemoGit.Result fetch = gitWith(bearer).run(tmp, "ls-remote", gatewayUrl);
    DemoGit.Result push = gitWith(bearer)
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
    TerminalTable table = new TerminalTable("TIME", "REPOSITORY", "REF", "KIND", "CODE", "REASON");
    DateTimeFormatter time = DateTimeFormatter.ofPattern("HH:mm:ss")
        .withZone(ZoneId.systemDefault());
    List<JsonNode> sorted = new ArrayList<>();
    decisions.forEach(sorted::add);
    sorted.sort(Comparator.comparing(d -> d.get("at").asText()));
    for (JsonNode d : sorted) {
      table.row(time.format(Instant.parse(d.get("at").asText())),
          d.get("repository").asText(), d.get("ref").asText(), d.get("kind").asText(),
          d.path("code").asText(""), d.path("reason").asText(""));
    }
    printIndented("    ", table.toString());
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

  private DemoGit.Result git(Path dir, String... args) throws Exception {
    return gitWith(runEnv).run(dir, args);
  }

  /** git with {@code env} instead of the run's, shown to the reader. */
  private DemoGit gitWith(Map<String, String> env) {
    return new DemoGit(home, env, out);
  }

  private String head() throws Exception {
    return new DemoGit(home, runEnv, null).run(work, "rev-parse", "HEAD").orFail()
        .output().strip();
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

  @Override
  public void close() throws Exception {
    if (appliance != null) {
      appliance.close();
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
}
