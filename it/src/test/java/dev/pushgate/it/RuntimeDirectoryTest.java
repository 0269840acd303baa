package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.RunningAppliance;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the systemd unit relies on: {@code serve} starts with no configuration file, puts the
 * gateway socket in {@code --runtime-dir} (the unit's RuntimeDirectory, which PrivateTmp does not
 * hide), and a SIGTERM stop exits 143, the status the unit counts as success.
 */
class RuntimeDirectoryTest {
  @TempDir Path tmp;

  @Test
  void gatewaySocketLivesInTheRuntimeDirectoryAndAStopExits143() throws Exception {
    Path runtime = tmp.resolve("run/pushgate");
    RunningAppliance app = RunningAppliance.start(tmp.resolve("data"),
        "--runtime-dir", runtime.toString());
    Path socket = runtime.resolve("gateway.sock");
    try {
      assertThat(tmp.resolve("data/pushgate.yaml")).doesNotExist();
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(runtime)))
          .isEqualTo("rwxr-x---");
      assertThat(Files.readAttributes(socket, BasicFileAttributes.class,
          LinkOption.NOFOLLOW_LINKS).isOther()).as("a socket at " + socket).isTrue();
      app.forgeCreate("acme/widget");
      JsonNode run = app.createRun(
          "{\"workspaceId\": \"ws-1\", \"repository\": \"acme/widget\", \"mode\": \"chat\"}");
      assertThat(run.at("/gateway/socket").asText()).isEqualTo(socket.toString());
    } finally {
      app.close();
    }
    assertThat(app.exitValue()).isEqualTo(143);
    assertThat(Files.exists(socket, LinkOption.NOFOLLOW_LINKS)).isFalse();
    assertThat(runtime).isDirectory();
  }

  @Test
  void aRuntimeDirectoryOthersCanWriteIsRefused() throws Exception {
    Path runtime = Files.createDirectories(tmp.resolve("shared"));
    Files.setPosixFilePermissions(runtime, PosixFilePermissions.fromString("rwxrwxrwx"));
    assertThatThrownBy(() -> RunningAppliance.start(tmp.resolve("data"),
            "--runtime-dir", runtime.toString()))
        .hasMessageContaining("refusing the runtime directory " + runtime
            + ": another user can write it");
  }
}
