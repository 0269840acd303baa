package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Attack atk-denyfs (medium): as root the layer's daemons let every user in (allow_other), and the
 * kernel's caches of looked-up names and listings are shared by all who come; its directory was
 * open to every host user (0711), so once the run's user had looked into a directory it made
 * private (0700), another host user was shown its listing and read its files through the layer,
 * past the permissions underneath. Only the sandbox's user may reach the mount points now.
 * Real daemon, real kernel, real users.
 */
class NameDenyLayerAccessTest {
  private static final SandboxUser RUN = new SandboxUser(2147000012, 2147000012);
  private static final int OTHER = 2147000013;

  @TempDir Path tmp;

  @Test
  void anotherHostUserCannotReachTheRunsMountThoughTheRunLookedIntoItsPrivateDirectory()
      throws Exception {
    Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "needs two users");
    String helper = DenyfsDaemon.requireHelper();
    Path dir = RealBwrap.searchable(tmp);
    Path source = Files.createDirectories(dir.resolve("source"));
    Path priv = Files.createDirectories(source.resolve("priv"));
    Files.writeString(priv.resolve("notes"), "private\n");
    run("chown", "-R", RUN.uid() + ":" + RUN.gid(), source.toString());
    run("chmod", "700", priv.toString());

    try (NameDenyLayer layer = NameDenyLayer.start(helper, dir, List.of(source.toString()),
        Map.of(), List.of(".env"), List.of(), List.of(), RUN, v -> { })) {
      String mount = layer.mountpoints().get(source.toString());
      assertThat(as(RUN.uid(), "ls " + mount + "/priv && cat " + mount + "/priv/notes"))
          .contains("notes", "private");
      String other =
          as(OTHER, "ls " + mount + "/priv 2>&1; cat " + mount + "/priv/notes 2>&1; true");
      assertThat(other).doesNotContain("private").doesNotContain("notes\n")
          .contains("Permission denied");
    }
  }

  private static String as(int uid, String script) throws Exception {
    Process p = new ProcessBuilder("setpriv", "--reuid=" + uid, "--regid=" + uid,
        "--clear-groups", "--", "sh", "-c", script).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    p.waitFor();
    return out;
  }

  private static void run(String... argv) throws Exception {
    Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor()).as("%s: %s", String.join(" ", argv), out).isZero();
  }
}
