package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.GitRun;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.LongPredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A push's write token is minted when git asks for its advertisement, within bounds that keep a
 * run from turning advertisements into mints (docs/push-path.md, "The pre-mint"). The real git
 * against the running appliance and its local forge; mints and revocations counted off the App
 * API calls the appliance made ({@code /metrics}).
 */
class PreMintTest {
  /** PreMints.WASTED_AT_MOST: pre-mints a run may waste before it loses pre-minting. */
  private static final int WASTED_AT_MOST = 3;
  private static final String RUN = """
      {"workspaceId": "ws-1", "mode": "%s", "repository": "acme/widget",
       "rules": {"push": [{"refs": "refs/heads/main", "decision": "deny"}]}}""";
  /** The repositories a run of {@link #RUN_ATTACHED} may push to: its own and three attached. */
  private static final String[] REPOS = {"acme/widget", "acme/a1", "acme/a2", "acme/a3"};
  private static final String RUN_ATTACHED = """
      {"workspaceId": "ws-1", "mode": "chat", "repository": "acme/widget",
       "attachedRepositories": ["acme/a1", "acme/a2", "acme/a3"],
       "rules": {"push": [{"refs": "refs/heads/main", "decision": "deny"}]}}""";

  @RegisterExtension
  static final ApplianceExtension app = ApplianceExtension.serving().withRepos(REPOS);

  /** A chat-mode run with a clone, which has pushed once: from now on it may pre-mint. */
  private record Pushed(JsonNode run, GitRun git, Path work) {}

  private static Pushed pushedOnce(String name) throws Exception {
    return pushedOnce(name, RUN.formatted("chat"));
  }

  private static Pushed pushedOnce(String name, String runRequest) throws Exception {
    JsonNode run = app.get().createRun(runRequest);
    GitRun git = new GitRun(Files.createDirectories(app.dir().resolve("home-" + name)),
        ForgeRefs.env(run));
    git.in(app.dir(), "clone", "-q", "https://github.com/acme/widget.git", name).ok();
    Path work = app.dir().resolve(name);
    git.in(work, "commit", "-q", "--allow-empty", "-m", "first").ok();
    long revoked = revocations();
    git.in(work, "push", "-q", "origin", "HEAD:" + name + "-first").ok();
    // revoked after the answer: counted before a test takes its own counts
    awaitCounter(PreMintTest::revocations, n -> n > revoked, "the first push's token revoked");
    return new Pushed(run, git, work);
  }

  @Test
  void aPushsTokenIsMintedBeforeGitSendsItsCommands() throws Exception {
    Pushed p = pushedOnce("early");
    long minted = writeMints();
    // git runs pre-push once it has the advertisement and before it sends its commands: the hook
    // waits there (with a deadline) for a write token to be minted, and says whether one was.
    Path seen = app.dir().resolve("early-seen");
    Path hook = p.work().resolve(".git/hooks/pre-push");
    Files.writeString(hook, """
        #!/bin/sh
        deadline=$(( $(date +%%s) + 30 ))
        while [ "$(date +%%s)" -lt "$deadline" ]; do
          n=$(curl -s http://127.0.0.1:%d/metrics \
            | sed -n 's/^pushgate_token_mints_total{kind="write",outcome="ok",\\{0,1\\}} \\([0-9.E]*\\)$/\\1/p')
          if [ -n "$n" ] && [ "${n%%.*}" -gt %d ]; then echo minted > '%s'; exit 0; fi
          sleep 0.1
        done
        echo "not minted" > '%s'
        """.formatted(app.get().port(), minted, seen, seen));
    assertThat(hook.toFile().setExecutable(true)).isTrue();

    p.git().in(p.work(), "commit", "-q", "--allow-empty", "-m", "second").ok();
    p.git().in(p.work(), "push", "-q", "origin", "HEAD:early-second").ok();

    assertThat(Files.readString(seen).trim()).as("a write token minted before the commands")
        .isEqualTo("minted");
    assertThat(writeMints() - minted).as("and it was the push's one token").isEqualTo(1);
    assertThat(ForgeRefs.ref(app.get(), "acme/widget", "refs/heads/early-second")).isNotNull();
  }

  /**
   * git probes the connection with an empty request ({@code 0000}) before a push whose request
   * outgrows {@code http.postBuffer} (1 MiB by default): before every large push. The probe
   * wasted the pre-minted token, so each large push minted twice and three cost the run its
   * pre-minting; it leaves the token to the push now.
   */
  @Test
  void gitsProbeBeforeALargePushLeavesThePreMintedTokenToThePush() throws Exception {
    Pushed p = pushedOnce("probe");
    byte[] content = new byte[64 << 10];
    new java.util.Random(35).nextBytes(content); // incompressible: the request outgrows 1 KiB
    Files.write(p.work().resolve("large.bin"), content);
    p.git().in(p.work(), "add", "large.bin").ok();
    p.git().in(p.work(), "commit", "-q", "-m", "large").ok();
    long minted = writeMints();

    p.git().in(p.work(), "-c", "http.postBuffer=1024", "push", "-q", "origin",
        "HEAD:probe-large").ok();

    assertThat(ForgeRefs.ref(app.get(), "acme/widget", "refs/heads/probe-large")).isNotNull();
    assertThat(writeMints() - minted).as("the pre-minted token, taken by the push after the probe")
        .isEqualTo(1);
  }

  @Test
  void fiftyAdvertisementsCostAtMostTheBoundOfMints() throws Exception {
    Pushed p = pushedOnce("fifty");
    long minted = writeMints();

    for (int i = 0; i < 50; i++) {
      assertThat(advertise(p.run())).isEqualTo(200);
    }

    long spent = writeMints() - minted;
    assertThat(spent).as("pre-mints of 50 advertisements").isBetween(1L, (long) WASTED_AT_MOST);
  }

  /**
   * attack35w: the bound counted only tokens already revoked, so advertisements of each attached
   * repository held one unused token per repository. Pending ones count now: 3 in all.
   */
  @Test
  void advertisementsOfEveryAttachedRepositoryCostAtMostTheBoundOfMints() throws Exception {
    Pushed p = pushedOnce("attached", RUN_ATTACHED);
    long minted = writeMints();
    long revoked = revocations();

    for (String repo : REPOS) {
      assertThat(advertise(p.run(), repo)).isEqualTo(200);
    }

    awaitCounter(PreMintTest::writeMints, n -> n - minted >= WASTED_AT_MOST, "pre-minted");
    // once the pending ones are revoked unspent (after their 5 s), a mint started for a fourth
    // repository would long have been counted
    awaitCounter(PreMintTest::revocations, n -> n - revoked >= WASTED_AT_MOST,
        "each revoked unspent");
    assertThat(writeMints() - minted).as("pre-mints over " + REPOS.length + " repositories")
        .isEqualTo(WASTED_AT_MOST);
  }

  @Test
  void emptyAndRefusedPushesInALoopLoseThePreMint() throws Exception {
    Pushed p = pushedOnce("loop");
    long minted = writeMints();
    long revoked = revocations();

    for (int i = 0; i < 10; i++) {
      assertThat(advertise(p.run())).isEqualTo(200);
      assertThat(emptyPush(p.run())).isEqualTo(200);
    }
    for (int i = 0; i < 3; i++) {
      p.git().in(p.work(), "commit", "-q", "--allow-empty", "-m", "to main " + i).ok();
      assertThat(p.git().in(p.work(), "push", "origin", "HEAD:main").failed().stderr())
          .contains("Control Center policy: push to refs/heads/main is denied");
    }

    awaitCounter(PreMintTest::writeMints, n -> n - minted >= WASTED_AT_MOST, "pre-minted");
    assertThat(writeMints() - minted).as("wasted pre-mints, then none")
        .isEqualTo(WASTED_AT_MOST);
    awaitCounter(PreMintTest::revocations, n -> n - revoked >= WASTED_AT_MOST,
        "each revoked unspent");
    p.git().in(p.work(), "push", "-q", "origin", "HEAD:loop-after").ok();
    assertThat(writeMints() - minted).as("the push mints its own, once its commands are read")
        .isEqualTo(WASTED_AT_MOST + 1);
  }

  @Test
  void aReadOnlyRunAndARunWhoseRulesDenyEveryRefNeverPreMint() throws Exception {
    JsonNode plan = app.get().createRun(RUN.formatted("plan"));
    JsonNode denied = app.get().createRun("""
        {"workspaceId": "ws-1", "mode": "chat", "repository": "acme/widget",
         "rules": {"push": "deny"}}""");
    long minted = writeMints();

    for (JsonNode run : new JsonNode[] {plan, denied}) {
      String name = run == plan ? "plan" : "denied";
      GitRun git = new GitRun(Files.createDirectories(app.dir().resolve("home-" + name)),
          ForgeRefs.env(run));
      git.in(app.dir(), "clone", "-q", "https://github.com/acme/widget.git", name).ok();
      Path work = app.dir().resolve(name);
      for (int i = 0; i < 3; i++) {
        git.in(work, "commit", "-q", "--allow-empty", "-m", "attempt " + i).ok();
        assertThat(git.in(work, "push", "origin", "HEAD:" + name + "-" + i).failed().stderr())
            .contains("Control Center policy");
        assertThat(advertise(run)).isEqualTo(200);
      }
    }

    assertThat(writeMints()).isEqualTo(minted);
  }

  @Test
  void aPendingTokenIsRevokedUnspentAfterItsTimeAndAtTheRunsEnd() throws Exception {
    Pushed p = pushedOnce("pending");
    long minted = writeMints();
    long revoked = revocations();

    assertThat(advertise(p.run())).isEqualTo(200);
    awaitCounter(PreMintTest::writeMints, n -> n == minted + 1, "minted at the advertisement");
    // Advertisements reuse the pending token until its time is up and it is revoked: only then
    // does one mint again.
    awaitCounter(() -> {
      assertThat(advertise(p.run())).isEqualTo(200);
      return writeMints();
    }, n -> n == minted + 2, "the pending token gone after its time, a new one minted");
    awaitCounter(PreMintTest::revocations, n -> n >= revoked + 1,
        "revoked unspent after its time");
    long beforeEnd = revocations();
    assertThat(app.get().control().delete("/v1/runs/" + p.run().get("runId").asText())
        .status()).isEqualTo(200);
    // the run's read token and the pending write token (the read token alone without it)
    awaitCounter(PreMintTest::revocations, n -> n - beforeEnd >= 2, "revoked at the run's end");
    // each once: the gateway's end of the run revokes the pending token, and the teardown that
    // follows finds it revoked in the ledger (it used to revoke it again, answered 401)
    assertThat(revokedTokens()).as("tokens revoked at the forge, each once")
        .doesNotHaveDuplicates();
  }

  /** The hashes of the tokens revoked at the forge, one per revocation call, off its log. */
  private static List<String> revokedTokens() throws Exception {
    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            URI.create(app.get().base() + "/forge/api/v3/_forge/requests")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    List<String> out = new ArrayList<>();
    for (JsonNode e : new ObjectMapper().readTree(r.body())) {
      if (e.get("method").asText().equals("DELETE")
          && e.get("path").asText().equals("/installation/token")) {
        out.add(e.get("token_sha256").asText());
      }
    }
    return out;
  }

  private static int advertise(JsonNode run) throws Exception {
    return advertise(run, "acme/widget");
  }

  private static int advertise(JsonNode run, String repo) throws Exception {
    return send(HttpRequest.newBuilder(URI.create(app.get().gatewayUrl()
        + repo + ".git/info/refs?service=git-receive-pack")).GET(), run).statusCode();
  }

  private static int emptyPush(JsonNode run) throws Exception {
    return send(HttpRequest.newBuilder(URI.create(app.get().gatewayUrl()
            + "acme/widget.git/git-receive-pack"))
        .header("Content-Type", "application/x-git-receive-pack-request")
        .POST(HttpRequest.BodyPublishers.ofString("0000")), run).statusCode();
  }

  private static HttpResponse<String> send(HttpRequest.Builder b, JsonNode run)
      throws Exception {
    return HttpClient.newHttpClient().send(b.header("Authorization", "Bearer "
        + ForgeRefs.credential(run)).build(),
        HttpResponse.BodyHandlers.ofString(StandardCharsets.ISO_8859_1));
  }

  /** Write tokens the App API issued to the appliance. */
  private static long writeMints() throws Exception {
    return counter("pushgate_token_mints_total\\{kind=\"write\",outcome=\"ok\",?\\}");
  }

  /** Tokens the appliance revoked (or found gone) at the App API. */
  private static long revocations() throws Exception {
    return counter("pushgate_token_revocations_total\\{outcome=\"ok\",?\\}");
  }

  /** Waits, with a deadline, until {@code counter} is {@code done}. */
  private static void awaitCounter(Callable<Long> counter, LongPredicate done, String what)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    long now = counter.call();
    while (!done.test(now) && System.nanoTime() < deadline) {
      Thread.sleep(50);
      now = counter.call();
    }
    assertThat(done.test(now)).as(what + " (counter at " + now + ")").isTrue();
  }

  private static long counter(String series) throws Exception {
    String metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + app.get().port() + "/metrics")).GET().build(),
        HttpResponse.BodyHandlers.ofString()).body();
    Matcher m = Pattern.compile(series + " ([0-9.E]+)").matcher(metrics);
    return m.find() ? (long) Double.parseDouble(m.group(1)) : 0;
  }
}
