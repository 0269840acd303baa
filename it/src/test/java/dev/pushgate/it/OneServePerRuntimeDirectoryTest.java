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

  /**
   * A serve refused because its data directory is another serve's runtime directory changes
   * nothing there (it made it 0700 before its lock refused it: the running serve's launchers,
   * reaching the socket through the group, were shut out); a runtime directory that is the
   * serve's own data directory is held by the data directory's lock (it refused itself, naming
   * its own pid). Both found by a reviewer.
   */
  @Test
  void aRefusedServeLeavesTheOthersRuntimeDirectoryAsItIsAndOneDirectoryMayServeAsBoth()
      throws Exception {
    Path runtime = Files.createDirectory(tmp.resolve("run"),
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-x---")));
    try (RunningAppliance first = RunningAppliance.start(tmp.resolve("a"),
        "--runtime-dir", runtime.toString())) {
      var second = RunningAppliance.on(runtime);
      assertThatThrownBy(second::start).hasMessageContaining("another pushgate serve is using");
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(runtime)))
          .isEqualTo("rwxr-x---");
    }
    Path both = tmp.resolve("both");
    try (RunningAppliance one = RunningAppliance.start(both, "--runtime-dir", both.toString())) {
      assertThat(one.healthz()).isEqualTo(200);
      assertThat(both.resolve("gateway.sock")).exists();
    }
  }
}
