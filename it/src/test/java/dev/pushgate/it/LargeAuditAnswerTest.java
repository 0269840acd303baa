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
 * One push of 6,000 refs (well under the 3 MiB command list the gateway accepts) leaves 6,000
 * audit records, and {@code pushgate audit --limit 10000} (the documented bound) still reads them
 * (found by the issue 15 review: the CLI buffered 2 MiB of the answer and then blamed the
 * appliance for not answering).
 */
class LargeAuditAnswerTest {
  private static final int REFS = 6_000;

  @RegisterExtension
  static final ApplianceExtension app = ApplianceExtension.serving().withRepos("acme/widget");

  @Test
  void theAuditOfOneLargePushCanBeReadWithTheDocumentedLimit() throws Exception {
    JsonNode run = app.get().createRun("""
        {"workspaceId": "ws-1", "mode": "chat", "repository": "acme/widget"}""");
    GitRun git = new GitRun(Files.createDirectories(app.dir().resolve("home")), ForgeRefs.env(run));
    git.in(app.dir(), "clone", "-q", "https://github.com/acme/widget.git", "w").ok();
    Path work = app.dir().resolve("w");
    git.in(work, "commit", "-q", "--allow-empty", "-m", "one").ok();
    git.in(work, "push", "-q", "origin", "HEAD:main").ok();
    ObjectId main = ForgeRefs.ref(app.get(), "acme/widget", "refs/heads/main");

    byte[] body = RawPush.creations(main, REFS, i -> String.format("refs/heads/many/%05d", i),
        "report-status agent=it");
    HttpResponse<String> rsp = RawPush.send(app.get(), run, body);
    assertThat(rsp.statusCode()).isEqualTo(200);
    assertThat(ForgeRefs.ref(app.get(), "acme/widget", "refs/heads/many/05999")).isEqualTo(main);

    String audit = RunningAppliance.cli("audit", "--json", "--limit", "10000", "--data-dir",
        app.dir().resolve("data").toString());
    assertThat(audit).contains("refs/heads/many/05999");
  }
}
