package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.gateway.api.ApiSentinel;
import dev.pushgate.testkit.GitRun;
import dev.pushgate.testkit.RunningAppliance;
import dev.pushgate.testkit.Wait;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nothing leaks. After a full scenario (allowed, refused, ask-without-approver and
 * attached-repository pushes, delete and force pushes, a traced push, malformed input, a failing
 * upstream, teardown and a TTL expiry), every place a secret could surface is searched: the run's
 * environment, git config and files, everything git printed (with {@code GIT_TRACE_CURL}, so the
 * whole HTTP conversation), the appliance's log, command line and environment, every HTTP answer,
 * the audit, every data file.
 *
 * <p>A run holds exactly two secrets, both pushgate's: the sentinel of its GitHub API boundary
 * ({@code GH_TOKEN}, which GitHub refuses) and its gateway credential. No installation token
 * ({@code ghs_} + 36 characters on the forge) may appear anywhere, so neither may the read token
 * the appliance keeps, a write token the gateway minted, a sync token, nor the App's JWT; the forge App
 * key's base64 body appears in {@code forge-app.pem} only. The database holds no token in the
 * clear: the ledger is encrypted and the forge keeps hashes.
 */
class LeakProbeTest {
  private static final Pattern TOKEN = Pattern.compile("gh[pousr]_[A-Za-z0-9]{36}");
  private static final Pattern RUN_CREDENTIAL = Pattern.compile("pgr_[A-Za-z0-9_-]{20,}");
  private static final Pattern JWT =
      Pattern.compile("eyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]+");
  private static final Pattern BASIC = Pattern.compile("Basic ([A-Za-z0-9+/=]{8,})");

  @TempDir Path tmp;

  @Test
  void noWriteTokenNorKeyMaterialSurfacesAnywhereAfterAFullScenario() throws Exception {
    StringBuffer gitOutput = new StringBuffer();
    try (RunningAppliance app = RunningAppliance.start(tmp.resolve("data"),
        "--sweep-interval", "1s")) {
      app.forgeCreate("acme/widget");
      app.forgeCreate("acme/lib");
      Map<String, String> answers = new LinkedHashMap<>();
      JsonNode run = app.createRun("""
          {"workspaceId": "ws-leak", "repository": "acme/widget",
           "attachedRepositories": ["acme/lib"],
           "rules": {"push": [
             {"refs": "refs/heads/main", "decision": "deny", "reason": "push to main is denied"},
             {"refs": "refs/heads/ask/*", "decision": "ask", "reason": "asked"}]}}""");
      String runId = run.get("runId").asText();
      String sentinel = run.get("env").get("GH_TOKEN").asText();
      assertThat(sentinel).startsWith(ApiSentinel.PREFIX);
      String credential = ForgeRefs.credential(run);
      String gitConfig = Files.readString(Path.of(run.get("gitConfigPath").asText()));

      GitRun git = new GitRun(Files.createDirectories(tmp.resolve("home")), ForgeRefs.env(run))
          .withTranscript(gitOutput);
      git.in(tmp, "clone", "-q", "https://github.com/acme/widget.git", "w").ok();
      Path w = tmp.resolve("w");
      commit(git, w, "one");
      git.in(w, "push", "origin", "HEAD:refs/heads/feature").ok();
      git.in(w, "push", "origin", "HEAD:main").failed();
      git.in(w, "push", "origin", "HEAD:refs/heads/ask/x").failed();
      git.in(w, "remote", "add", "lib", "https://github.com/acme/lib.git").ok();
      git.in(w, "push", "lib", "HEAD:refs/heads/from-widget").ok();
      commit(git, w, "two");
      git.withEnv("GIT_TRACE_CURL", "1").withEnv("GIT_TRACE_REDACT", "0")
          .in(w, "push", "origin", "HEAD:refs/heads/traced").ok();
      git.in(w, "reset", "-q", "--hard", "HEAD~1").ok();
      commit(git, w, "three");
      git.in(w, "push", "--force", "origin", "HEAD:refs/heads/traced").ok();
      git.in(w, "push", "origin", "--delete", "feature").ok();
      git.in(w, "fetch", "-q", "origin").ok();

      // Errors: a malformed push, strangers' credentials, an upstream that cannot be read.
      String receivePack = "/git/github.com/acme/widget.git/git-receive-pack";
      answers.put("malformed push", Wire.post(app, receivePack, credential,
          "garbage".getBytes(StandardCharsets.US_ASCII)).toString());
      answers.put("unknown credential", Wire.get(app, "/git/github.com/acme/widget.git/info/refs"
          + "?service=git-receive-pack", "pgr_not-a-credential").toString());
      Path lib = app.forgeRepo("acme/lib");
      Path away = lib.resolveSibling("lib.git.away");
      Files.move(lib, away);
      GitRun.Result unreadable = git.in(w, "push", "lib", "HEAD:refs/heads/unreadable").failed();
      Files.move(away, lib);
      assertThat(unreadable.stderr()).contains("cannot be read right now");

      // The endpoint that once handed a run its read token is gone.
      Wire.Answer gone = Wire.tcp(app.port(), "GET", "/v1/run/credential", credential, null, null);
      assertThat(gone.status()).isEqualTo(404);
      answers.put("run credential endpoint", gone.body());
      for (String path : List.of("/v1/runs", "/v1/runs/" + runId, "/v1/audit",
          "/v1/audit?runId=" + runId, "/v1/approvals")) {
        answers.put("control " + path, app.control().get(path).raw());
      }
      answers.put("metrics", Wire.tcp(app.port(), "GET", "/metrics", null, null, null).body());
      answers.put("healthz", Wire.tcp(app.port(), "GET", "/healthz", null, null, null).body());
      List<String> runFiles = new ArrayList<>();
      try (Stream<Path> files = Files.walk(app.dataDir.resolve("runs"))) {
        for (Path f : files.filter(Files::isRegularFile).toList()) {
          runFiles.add(f + ":\n" + Files.readString(f));
        }
      }
      answers.put("teardown", app.control().delete("/v1/runs/" + runId).raw());

      // A second run ends by TTL, on the sweeper's clock.
      JsonNode shortRun = app.createRun(
          "{\"workspaceId\": \"ws-leak\", \"repository\": \"acme/widget\", \"ttlSeconds\": 1}");
      String shortSentinel = shortRun.get("env").get("GH_TOKEN").asText();
      assertThat(shortSentinel).startsWith(ApiSentinel.PREFIX);
      Wait.until(Duration.ofSeconds(60), "the sweeper to end the run past its TTL",
          () -> Forge.liveCredentials(app, shortRun.get("runId").asText()) == 0);
      assertThat(Forge.liveCredentials(app, shortRun.get("runId").asText())).isZero();
      answers.put("ended run", app.control().get("/v1/runs/" + shortRun.get("runId").asText())
          .raw());

      Set<String> sentinels = Set.of(sentinel, shortSentinel);
      List<String> keyLines = keyBody(app.dataDir.resolve("forge-app.pem"));

      // The run's environment: its sentinel, its credential, and no token.
      for (var it = run.get("env").fields(); it.hasNext(); ) {
        var e = it.next();
        String v = e.getValue().asText();
        assertThat(tokensIn(without(v, sentinels))).as("env " + e.getKey()).isEmpty();
        assertClean("env " + e.getKey(), v, keyLines);
      }
      // Its git config and files: the credential by design, never a token, nor the sentinel in
      // git's config (git reads through the gateway, with the credential only).
      assertThat(tokensIn(gitConfig)).as("git config").isEmpty();
      assertClean("git config", gitConfig, keyLines);
      for (String f : runFiles) {
        assertThat(tokensIn(without(f, sentinels))).as(f).isEmpty();
        assertClean(f, f, keyLines);
      }
      try (Stream<Path> files = Files.walk(w)) {
        for (Path f : files.filter(Files::isRegularFile).toList()) {
          String text = Files.readString(f, StandardCharsets.ISO_8859_1);
          assertThat(tokensIn(text)).as(f.toString()).isEmpty();
          assertClean(f.toString(), text, keyLines);
        }
      }
      // Everything git printed, the whole traced HTTP conversation included (Basic decoded).
      String transcript = decodeBasic(gitOutput.toString());
      assertThat(transcript).contains("Authorization: Bearer " + credential);
      assertThat(tokensIn(transcript)).as("tokens in git's output").isEmpty();
      assertClean("git output", transcript, keyLines);

      // Every HTTP answer: no token, and no sentinel either.
      for (var a : answers.entrySet()) {
        assertThat(tokensIn(a.getValue())).as(a.getKey()).isEmpty();
        assertThat(RUN_CREDENTIAL.matcher(a.getValue()).find()).as(a.getKey()).isFalse();
        assertClean(a.getKey(), a.getValue(), keyLines);
      }

      // The appliance's log (exception messages included), command line and environment.
      String log = app.logText();
      assertThat(log).contains("issued write token for acme/lib");
      assertThat(tokensIn(log)).as("tokens in the log").isEmpty();
      assertThat(RUN_CREDENTIAL.matcher(log).find()).as("run credential in the log").isFalse();
      assertClean("log", log, keyLines);
      for (String proc : List.of("cmdline", "environ")) {
        String text = Files.readString(Path.of("/proc/" + app.pid() + "/" + proc),
            StandardCharsets.ISO_8859_1);
        assertThat(tokensIn(text)).as(proc).isEmpty();
        assertClean(proc, text, keyLines);
      }

      // Data files: no token anywhere, not even in the database, which holds the ledger
      // encrypted and the forge's tokens as hashes; the key only in its own file.
      try (Stream<Path> files = Files.walk(app.dataDir)) {
        for (Path f : files.filter(Files::isRegularFile).toList()) {
          String text = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
          assertThat(tokensIn(text)).as(f.toString()).isEmpty();
          assertThat(RUN_CREDENTIAL.matcher(text).find()).as(f.toString()).isFalse();
          assertThat(JWT.matcher(text).find()).as(f.toString()).isFalse();
          if (!f.getFileName().toString().equals("forge-app.pem")) {
            for (String line : keyLines) {
              assertThat(text).as(f.toString()).doesNotContain(line);
            }
          }
        }
      }

      // Every write token the gateway minted was recorded, and is revoked.
      try (Connection c = DriverManager.getConnection(
              "jdbc:sqlite:" + app.dataDir.resolve("pushgate.db"));
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT count(*), count(revoked_at) FROM credentials"
              + " WHERE kind = 'write'")) {
        rs.next();
        assertThat(rs.getInt(1)).as("write tokens minted").isGreaterThanOrEqualTo(4);
        assertThat(rs.getInt(2)).as("write tokens revoked").isEqualTo(rs.getInt(1));
      }
    }
  }

  private static Set<String> tokensIn(String text) {
    Set<String> found = new TreeSet<>();
    Matcher m = TOKEN.matcher(text);
    while (m.find()) {
      found.add(m.group());
    }
    return found;
  }

  /** {@code text} with the given sentinels taken out, where a run's own sentinel may be. */
  private static String without(String text, Set<String> sentinels) {
    String out = text;
    for (String s : sentinels) {
      out = out.replace(s, "");
    }
    return out;
  }

  /** No App JWT, no line of the App key, no PEM armour. */
  private static void assertClean(String where, String text, List<String> keyLines) {
    assertThat(JWT.matcher(text).find()).as("a JWT in " + where).isFalse();
    assertThat(text).as(where).doesNotContain("PRIVATE KEY");
    for (String line : keyLines) {
      assertThat(text).as("App key material in " + where).doesNotContain(line);
    }
  }

  /** The base64 lines of a PEM key, the shortest ones left out (they could match by chance). */
  private static List<String> keyBody(Path pem) throws Exception {
    return Files.readAllLines(pem).stream()
        .filter(l -> !l.startsWith("-----") && l.length() >= 32).toList();
  }

  private static String decodeBasic(String text) {
    StringBuilder out = new StringBuilder(text);
    Matcher m = BASIC.matcher(text);
    while (m.find()) {
      try {
        out.append('\n').append(new String(Base64.getDecoder().decode(m.group(1)),
            StandardCharsets.UTF_8));
      } catch (IllegalArgumentException e) {
        // not base64 after all
      }
    }
    return out.toString();
  }

  private static void commit(GitRun git, Path w, String content) throws Exception {
    Files.writeString(w.resolve(content + ".txt"), content + "\n");
    git.in(w, "add", ".").ok();
    git.in(w, "commit", "-q", "-m", content).ok();
  }
}
