package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.GitRun;
import java.nio.file.Files;
import java.nio.file.Path;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Attack finding (push path, reach; severity: low-medium, an information leak across runs): the
 * fetch side answers an object a refused push left in the cache as an absent one on every path
 * (docs/push-path.md, "A read through the gateway", step 4), but the push path tells them apart.
 * A push naming such an object without sending it gets {@code Missing commit <id>} (its type and
 * that the cache holds it); one naming an object nobody has gets {@code Missing unknown <id>}. So
 * any run on the repository can test a guessed id (a hashed guess of another run's refused file
 * or commit) against the cache. (A delta base likewise: {@code Missing blob} vs
 * {@code Missing delta base}.)
 */
class AtkPushExistenceOracleTest {
  @RegisterExtension
  static final ApplianceExtension app = ApplianceExtension.serving().withRepos("acme/widget");

  @Test
  void aRefusedPushsObjectAnswersAsAnAbsentOneOnThePushPathToo() throws Exception {
    JsonNode runA = app.get().createRun("""
        {"workspaceId": "ws-a", "repository": "acme/widget",
         "rules": {"push": [{"refs": "refs/heads/main", "decision": "deny"}]}}""");
    JsonNode runC = app.get().createRun("{\"workspaceId\": \"ws-c\", \"repository\": \"acme/widget\"}");
    GitRun gitA = new GitRun(Files.createDirectories(app.dir().resolve("home")), ForgeRefs.env(runA));
    gitA.in(app.dir(), "clone", "-q", "https://github.com/acme/widget.git", "a").ok();
    Path workA = app.dir().resolve("a");
    Files.writeString(workA.resolve("plan.txt"), "run A's refused plan\n");
    gitA.in(workA, "add", "plan.txt").ok();
    gitA.in(workA, "-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-q", "-m",
        "refused").ok();
    gitA.in(workA, "push", "--atomic", "origin", "HEAD:main", "HEAD:refs/heads/a-side").failed();
    ObjectId refused = ObjectId.fromString(gitA.in(workA, "rev-parse", "HEAD").ok().stdout().strip());
    ObjectId nobodys = ObjectId.fromString("0123456789abcdef0123456789abcdef01234567");

    String credentialC = ForgeRefs.credential(runC);
    String receivePack = "/git/github.com/acme/widget.git/git-receive-pack";
    Wire.Answer held = Wire.post(app.get(), receivePack, credentialC, PackBytes.request(
        RawPush.command(ObjectId.zeroId(), refused, "refs/heads/probe"), RawPush.emptyPack()));
    Wire.Answer absent = Wire.post(app.get(), receivePack, credentialC, PackBytes.request(
        RawPush.command(ObjectId.zeroId(), nobodys, "refs/heads/probe"), RawPush.emptyPack()));

    assertThat(held.status()).isEqualTo(absent.status());
    assertThat(held.body().replace(refused.name(), "<id>"))
        .as("the answer for an object only a refused push left in the cache")
        .isEqualTo(absent.body().replace(nobodys.name(), "<id>"));
  }
}
