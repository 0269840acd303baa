package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.GitRun;
import dev.pushgate.testkit.RunningAppliance;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A hand-built command {@code 0{40} 0{40} <ref>} (found by the issue 15 review). The verdict
 * before the pack reads it as a create, JGit as a delete, and C git's receive-pack deletes an
 * existing ref for it without checking the old value. The gateway refuses it in git's words,
 * audits the refusal, moves nothing, and logs no ERROR (it used to answer "internal error").
 */
class NullToNullCommandTest {
  private static final String RUN = """
      {"workspaceId": "ws-1", "mode": "chat", "repository": "acme/widget",
       "rules": {"push": [{"refs": "refs/tags/**", "kinds": ["update", "force", "delete"],
         "decision": "deny", "reason": "tags are immutable"}]}}""";

  @RegisterExtension
  static final ApplianceExtension app = ApplianceExtension.serving().withRepos("acme/widget");

  @Test
  void aNullToNullCommandOnAnImmutableTagGetsAClearRefusalNotAnInternalError() throws Exception {
    JsonNode run = app.get().createRun(RUN);
    GitRun git = new GitRun(Files.createDirectories(app.dir().resolve("home")), ForgeRefs.env(run));
    git.in(app.dir(), "clone", "-q", "https://github.com/acme/widget.git", "w").ok();
    Path work = app.dir().resolve("w");
    git.in(work, "commit", "-q", "--allow-empty", "-m", "one").ok();
    git.in(work, "push", "-q", "origin", "HEAD:main").ok();
    git.in(work, "tag", "v1").ok();
    git.in(work, "push", "-q", "origin", "v1").ok();
    ObjectId v1 = ForgeRefs.ref(app.get(), "acme/widget", "refs/tags/v1");
    assertThat(v1).isNotNull();

    byte[] body = RawPush.request(
        RawPush.command(ObjectId.zeroId(), ObjectId.zeroId(), "refs/tags/v1"),
        RawPush.emptyPack());
    HttpResponse<String> rsp = RawPush.send(app.get(), run, body);

    assertThat(ForgeRefs.ref(app.get(), "acme/widget", "refs/tags/v1")).isEqualTo(v1);
    assertThat(rsp.body()).doesNotContain("internal error in the push gateway")
        .contains("ng refs/tags/v1 an update from no object to no object is neither a create"
            + " nor a delete; nothing was pushed");
    assertThat(RunningAppliance.cli("audit", "--json", "--data-dir",
        app.dir().resolve("data").toString()))
        .as("the refusal is audited").contains("INVALID_COMMAND").contains("refs/tags/v1");
    assertThat(app.get().logText()).doesNotContain("is not the command judged")
        .doesNotContain(" ERROR ");
  }
}
