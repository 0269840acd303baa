package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.GitRun;
import dev.pushgate.testkit.Host;
import dev.pushgate.testkit.RunningAppliance;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.lib.Repository;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The disk fills up while a pack is received: git gets an error, no ref moves, and once the
 * failed pack is cleaned up the appliance serves the next push. The data directory is a small
 * tmpfs, which needs root (CI runs as root; elsewhere this test is skipped).
 */
class DiskFullTest {
  @TempDir Path tmp;

  @Test
  void aPackThatFillsTheDiskIsRefusedAndTheApplianceKeepsServing() throws Exception {
    assumeTrue(Host.isRoot() || "true".equals(System.getenv("CI")),
        "needs root to mount a small tmpfs");
    Path data = Files.createDirectories(tmp.resolve("data"));
    run("mount", "-t", "tmpfs", "-o", "size=48m,mode=0700", "tmpfs", data.toString());
    try (RunningAppliance app = RunningAppliance.start(data)) {
      app.forgeCreate("acme/widget");
      JsonNode r = app.createRun("{\"workspaceId\": \"ws\", \"repository\": \"acme/widget\"}");
      GitRun git = new GitRun(Files.createDirectories(tmp.resolve("home")),
          RunningAppliance.runEnv(r));
      git.in(tmp, "clone", "-q", "https://github.com/acme/widget.git", "w").ok();
      Path w = tmp.resolve("w");
      byte[] noise = new byte[64 << 20];
      new Random(7).nextBytes(noise);
      Files.write(w.resolve("big.bin"), noise);
      git.in(w, "add", ".").ok();
      git.in(w, "commit", "-qm", "too big for the disk").ok();

      GitRun.Result full = git.in(w, "push", "origin", "HEAD:refs/heads/big").failed();
      assertThat(full.stderr()).containsAnyOf("HTTP 500", "HTTP 400", "remote rejected",
          "unpack", "No space left");
      assertThat(forgeRef(app, "refs/heads/big")).isNull();
      assertThat(app.healthz()).isEqualTo(200);

      git.in(w, "reset", "-q", "--hard", "HEAD~1").ok();
      Files.writeString(w.resolve("small.txt"), "fits\n");
      git.in(w, "add", ".").ok();
      git.in(w, "commit", "-qm", "small").ok();
      git.in(w, "push", "origin", "HEAD:refs/heads/small").ok();
      assertThat(forgeRef(app, "refs/heads/small")).isNotNull();
    } finally {
      run("umount", "-l", data.toString());
    }
  }

  private static String forgeRef(RunningAppliance app, String ref) throws Exception {
    try (Repository repo = new FileRepository(app.forgeRepo("acme/widget").toFile())) {
      var r = repo.exactRef(ref);
      return r == null ? null : r.getObjectId().name();
    }
  }

  private static void run(String... cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).inheritIO().start();
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(String.join(" ", cmd)).isZero();
  }
}
