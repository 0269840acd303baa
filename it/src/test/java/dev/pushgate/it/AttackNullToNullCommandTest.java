package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.GitRun;
import dev.pushgate.testkit.RunningAppliance;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Attack (issue 15 review): a hand-built command {@code 0{40} 0{40} <ref>}. The filter's {@link
 * Verdict} judges it a create (it tests "old is zero" first); JGit's {@code ReceiveCommand} types
 * it a delete (it tests "new is zero" first). Verdict's comment says its kinds are "the kinds
 * JGit's ReceiveCommand can give these ids, and nothing else" - they are not. The push hook then
 * throws {@code IllegalStateException: ... is not the command judged}: the push is answered
 * "internal error in the push gateway", with an ERROR and a stack trace in the log. It fails
 * closed (nothing moves), but promise 4 of docs/security.md ("bad input ... gets a clear answer",
 * "the log holds no ERROR and no stack trace") is broken, and the early verdict judged a create
 * where git (JGit here, and C git's receive-pack, which deletes an existing ref without an old-id
 * check for this command) sees a delete.
 */
class AttackNullToNullCommandTest {
  private static final String RUN = """
      {"workspaceId": "ws-1", "mode": "chat", "repository": "acme/widget",
       "rules": {"push": [{"refs": "refs/tags/**", "kinds": ["update", "force", "delete"],
         "decision": "deny", "reason": "tags are immutable"}]}}""";

  @TempDir static Path tmp;
  static RunningAppliance app;

  @BeforeAll
  static void start() throws Exception {
    app = RunningAppliance.start(tmp.resolve("data"));
    app.forgeCreate("acme/widget");
  }

  @AfterAll
  static void stop() throws Exception {
    if (app != null) {
      app.close();
    }
  }

  @Test
  void aNullToNullCommandOnAnImmutableTagGetsAClearRefusalNotAnInternalError() throws Exception {
    JsonNode run = app.createRun(RUN);
    GitRun git = new GitRun(Files.createDirectories(tmp.resolve("home")), ForgeRefs.env(run));
    git.in(tmp, "clone", "-q", "https://github.com/acme/widget.git", "w").ok();
    Path work = tmp.resolve("w");
    git.in(work, "commit", "-q", "--allow-empty", "-m", "one").ok();
    git.in(work, "push", "-q", "origin", "HEAD:main").ok();
    git.in(work, "tag", "v1").ok();
    git.in(work, "push", "-q", "origin", "v1").ok();
    ObjectId v1 = ForgeRefs.ref(app, "acme/widget", "refs/tags/v1");
    assertThat(v1).isNotNull();

    byte[] body = RawPush.request(
        RawPush.command(ObjectId.zeroId(), ObjectId.zeroId(), "refs/tags/v1"),
        RawPush.emptyPack());
    HttpResponse<String> rsp = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            URI.create(app.gatewayUrl() + "acme/widget.git/git-receive-pack"))
        .header("Authorization", "Bearer " + ForgeRefs.credential(run))
        .header("Content-Type", "application/x-git-receive-pack-request")
        .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
        HttpResponse.BodyHandlers.ofString(StandardCharsets.ISO_8859_1));

    assertThat(ForgeRefs.ref(app, "acme/widget", "refs/tags/v1")).isEqualTo(v1);
    assertThat(rsp.body()).doesNotContain("internal error in the push gateway");
    assertThat(app.logText()).doesNotContain("is not the command judged")
        .doesNotContain(" ERROR ");
  }
}
