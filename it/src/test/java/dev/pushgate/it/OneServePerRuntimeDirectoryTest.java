package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pushgate.testkit.RunningAppliance;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two serves on two data directories but one {@code --runtime-dir} (the packaged unit's {@code
 * %t/pushgate}, copied for a second instance): the second is refused at its start. On the old
 * code it bound its own {@code gateway.sock} over the first one's (the first one's sandboxed
 * runs then reached a gateway that did not know them) and deleted it when it stopped (found by
 * a reviewer, attack2).
 */
class OneServePerRuntimeDirectoryTest {
  @TempDir Path tmp;

  @Test
  void aSecondServeOnTheSameRuntimeDirectoryIsRefusedAndTheFirstKeepsItsGatewaySocket()
      throws Exception {
    Path runtime = Files.createDirectory(tmp.resolve("run"),
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    Path socket = runtime.resolve("gateway.sock");
    try (RunningAppliance first = RunningAppliance.start(tmp.resolve("a"),
        "--runtime-dir", runtime.toString())) {
      Object inode = Files.getAttribute(socket, "unix:ino");
      var second = RunningAppliance.on(tmp.resolve("b"))
          .serve(java.util.List.of("--runtime-dir", runtime.toString()));
      assertThatThrownBy(second::start).hasMessageContaining(
          "another pushgate serve is using the runtime directory " + runtime);
      assertThat(first.healthz()).isEqualTo(200);
      assertThat(Files.getAttribute(socket, "unix:ino"))
          .as("the first serve's gateway socket, the first still serving").isEqualTo(inode);
    }
  }
}
