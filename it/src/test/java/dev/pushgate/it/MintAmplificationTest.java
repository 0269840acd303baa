package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.GitRun;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A run cannot make the gateway spend the GitHub App's rate limit, which every run and host of
 * the App share: a write token is minted only for a push with an allowed command, and at most
 * {@code --max-write-tokens-per-minute} of them per run.
 */
class MintAmplificationTest {
  private static final String RUN = """
      {"workspaceId": "ws-1", "mode": "chat", "repository": "acme/widget",
       "rules": {"push": [{"refs": "refs/heads/main", "decision": "deny"}]}}""";

  @RegisterExtension
  static final ApplianceExtension app = ApplianceExtension.serving("--max-write-tokens-per-minute",
      "3")
      .withRepos("acme/widget");

  @Test
  void pushesWithoutAnAllowedCommandMintNothingUpstream() throws Exception {
    JsonNode run = app.get().createRun(RUN);
    String credential = ForgeRefs.credential(run);
    long issuedBefore = issueTokenCalls();
    long mintedBefore = mints("minted");
    String repo = app.get().gatewayUrl() + "acme/widget.git";

    for (int i = 0; i < 30; i++) {
      assertThat(send(HttpRequest.newBuilder(URI.create(
          repo + "/info/refs?service=git-receive-pack")).GET(), credential).statusCode())
          .isEqualTo(200);
      HttpResponse<String> empty = send(HttpRequest.newBuilder(URI.create(
              repo + "/git-receive-pack"))
          .header("Content-Type", "application/x-git-receive-pack-request")
          .POST(HttpRequest.BodyPublishers.ofString("0000")), credential);
      assertThat(empty.statusCode()).isEqualTo(200);
    }
    GitRun git = new GitRun(Files.createDirectories(app.dir().resolve("home-a")),
        ForgeRefs.env(run));
    git.in(app.dir(), "clone", "-q", "https://github.com/acme/widget.git", "a").ok();
    Path work = app.dir().resolve("a");
    for (int i = 0; i < 5; i++) {
      git.in(work, "commit", "-q", "--allow-empty", "-m", "attempt " + i).ok();
      assertThat(git.in(work, "push", "origin", "HEAD:main").failed().stderr())
          .contains("Control Center policy: push to refs/heads/main is denied");
    }

    assertThat(issueTokenCalls()).as("no token minted upstream").isEqualTo(issuedBefore);
    assertThat(mints("minted")).isEqualTo(mintedBefore);
  }

  @Test
  void aRunPushingInALoopIsRefusedPastItsBudgetAndTheOtherRunsAreNot() throws Exception {
    JsonNode looping = app.get().createRun(RUN);
    GitRun git = new GitRun(Files.createDirectories(app.dir().resolve("home-b")),
        ForgeRefs.env(looping));
    git.in(app.dir(), "clone", "-q", "https://github.com/acme/widget.git", "b").ok();
    Path work = app.dir().resolve("b");
    long issuedBefore = issueTokenCalls();
    long mintedBefore = mints("minted");
    long limitedBefore = mints("rate-limited");

    for (int i = 0; i < 3; i++) {
      git.in(work, "commit", "-q", "--allow-empty", "-m", "loop " + i).ok();
      git.in(work, "push", "-q", "origin", "HEAD:loop-" + i).ok();
    }
    git.in(work, "commit", "-q", "--allow-empty", "-m", "one too many").ok();
    GitRun.Result refused = git.in(work, "push", "origin", "HEAD:loop-3").failed();

    assertThat(refused.stderr()).containsPattern("! \\[remote rejected\\] HEAD -> loop-3 \\(this"
        + " run has pushed more than 3 times in a minute, the most one run may; nothing was"
        + " pushed, try again in [0-9]+ s\\)");
    assertThat(ForgeRefs.ref(app.get(), "acme/widget", "refs/heads/loop-3")).isNull();
    assertThat(issueTokenCalls() - issuedBefore).as("three write tokens, no more").isEqualTo(3);
    assertThat(mints("minted") - mintedBefore).isEqualTo(3);
    assertThat(mints("rate-limited")).isGreaterThan(limitedBefore);

    JsonNode other = app.get().createRun(RUN);
    GitRun otherGit = new GitRun(Files.createDirectories(app.dir().resolve("home-c")),
        ForgeRefs.env(other));
    otherGit.in(app.dir(), "clone", "-q", "https://github.com/acme/widget.git", "c").ok();
    otherGit.in(app.dir().resolve("c"), "commit", "-q", "--allow-empty", "-m", "other run").ok();
    otherGit.in(app.dir().resolve("c"), "push", "-q", "origin", "HEAD:other").ok();
    assertThat(ForgeRefs.ref(app.get(), "acme/widget", "refs/heads/other")).isNotNull();
  }

  private static HttpResponse<String> send(HttpRequest.Builder b, String credential)
      throws Exception {
    return HttpClient.newHttpClient().send(b.header("Authorization", "Bearer " + credential)
        .build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.ISO_8859_1));
  }

  private static String metrics() throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + app.get().port() + "/metrics")).GET().build(),
        HttpResponse.BodyHandlers.ofString()).body();
  }

  /** The token requests the appliance sent to the App API (read and write), from /metrics. */
  private static long issueTokenCalls() throws Exception {
    return counter("pushgate_github_calls_total\\{operation=\"issue-token\",status=\"201\"\\}");
  }

  /** Write tokens the gateway asked for with {@code outcome}, from /metrics. */
  private static long mints(String outcome) throws Exception {
    return counter("pushgate_write_token_mints_total\\{outcome=\"" + outcome + "\"\\}");
  }

  private static long counter(String series) throws Exception {
    Matcher m = Pattern.compile(series + " ([0-9.E]+)").matcher(metrics());
    return m.find() ? (long) Double.parseDouble(m.group(1)) : 0;
  }
}
