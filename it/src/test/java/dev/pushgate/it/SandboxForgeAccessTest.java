package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.testkit.ApplianceExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * From inside {@code pushgate exec}'s bubblewrap sandbox, the run clones through the gateway and
 * holds no token the local forge takes: its {@code GH_TOKEN} sentinel neither reads nor pushes by
 * any spelling of the receive-pack path, and the appliance's other endpoints are not bridged in.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SandboxForgeAccessTest {
  @RegisterExtension
  static final ApplianceExtension app = ExecRules.appliance();

  Path rules;

  @BeforeAll
  void start() throws Exception {
    rules = ExecRules.mainDenied(app);
  }

  @Test
  void theRunInsideTheSandboxFetchesButHoldsNoTokenThatReadsOrPushesByAnySpelling()
      throws Exception {
    Path work = Files.createDirectories(app.dir().resolve("work"));
    ObjectId main = ForgeRefs.ref(app.get(), "acme/widget", "refs/heads/main");
    Files.write(work.resolve("push.bin"), RawPush.request(
        RawPush.command(ObjectId.zeroId(), main, "refs/heads/sneak"), RawPush.emptyPack()));
    Files.setPosixFilePermissions(work, PosixFilePermissions.fromString("rwxrwxrwx"));
    String base = "http://127.0.0.1:" + app.get().port();
    String script = """
        code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
        push() { code -u "x-access-token:$GH_TOKEN" \
          -H 'Content-Type: application/x-git-receive-pack-request' \
          --data-binary @push.bin "$BASE/forge/acme/widget.git/$1"; }
        echo "semicolon $(push 'git-receive-pack;x')"
        echo "encoded $(push 'git-receive-pac%6b')"
        echo "plain $(push git-receive-pack)"
        echo "metrics $(code "$BASE/metrics")"
        echo "healthz $(code "$BASE/healthz")"
        echo "app-api $(code "$BASE/forge/api/v3/app")"
        case "$GH_TOKEN" in ghs_pushgate?*) echo "GH_TOKEN is the sentinel";; esac
        echo "direct-read $(code -u "x-access-token:$GH_TOKEN" \
          "$BASE/forge/acme/widget.git/info/refs?service=git-upload-pack")"
        git clone -q https://github.com/acme/widget.git widget && echo cloned
        cd widget
        # Around the run's git config, which would send the push to the gateway.
        GIT_CONFIG_GLOBAL=/dev/null git -c credential.helper= \
          -c credential.helper='!f() { echo username=x-access-token; echo "password=$GH_TOKEN"; }; f' \
          push "$BASE/forge/acme/widget.git" HEAD:refs/heads/direct 2>&1 || echo push-failed
        """;
    PushgateExec.Result exec = exec(work, Map.of("BASE", base), "--workdir", work.toString(),
        "--rules", rules.toString(), "--pass-env", "BASE", "--", "sh", "-c", script);
    assertThat(exec.exit()).as(exec.stderr()).isZero();
    assertThat(exec.stderr()).contains("under bubblewrap");
    // The clone went through the gateway; the run's GH_TOKEN is a sentinel the forge refuses
    // for a read and for a push by any spelling (the literal-path check answers first).
    assertThat(exec.stdout()).contains("semicolon 400", "encoded 400", "plain 401",
        "metrics 404", "healthz 404", "app-api 404", "GH_TOKEN is the sentinel",
        "direct-read 401", "cloned", "Invalid username or token", "push-failed");
    assertThat(ForgeRefs.of(app.get(), "acme/widget")).containsOnlyKeys("refs/heads/main");
  }

  private static PushgateExec.Result exec(Path cwd, Map<String, String> env, String... args)
      throws Exception {
    return PushgateExec.on(app.get().dataDir, app.dir().resolve("home")).run(cwd, env, args);
  }
}
