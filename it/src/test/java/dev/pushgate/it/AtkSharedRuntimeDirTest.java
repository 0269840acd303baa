package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.testkit.RunningAppliance;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Attack (attack2, target 2), severity MEDIUM: {@code serve.lock} makes one serve per data
 * directory, but nothing makes one per runtime directory. A second serve on another data
 * directory with the same {@code --runtime-dir} (the packaged unit's {@code %t/pushgate}, copied
 * for a second instance) starts, binds its own {@code gateway.sock} over the first one's (the
 * first serve's sandboxed runs now reach the second's gateway, which does not know them), and
 * when it stops it deletes the socket: the first serve, still running, has none for its runs.
 * Reproduced with the packaged jar by hand as well.
 */
class AtkSharedRuntimeDirTest {
  @TempDir Path tmp;

  @Test
  void aSecondServeOnTheSameRuntimeDirectoryLeavesTheFirstOnesGatewaySocketInPlace()
      throws Exception {
    Path runtime = Files.createDirectory(tmp.resolve("run"),
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    Path socket = runtime.resolve("gateway.sock");
    try (RunningAppliance first = RunningAppliance.start(tmp.resolve("a"),
        "--runtime-dir", runtime.toString())) {
      assertThat(socket).exists();
      try {
        RunningAppliance.start(tmp.resolve("b"), "--runtime-dir", runtime.toString()).close();
      } catch (Exception refused) {
        // refused at its start, naming the first: what a fix would do
      }
      assertThat(first.healthz()).isEqualTo(200);
      assertThat(socket).as("the first serve's gateway socket, the first still serving")
          .exists();
    }
  }
}
