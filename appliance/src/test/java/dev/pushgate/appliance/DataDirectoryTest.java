package dev.pushgate.appliance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DataDirectoryTest {
  @TempDir Path tmp;
  private Path root;

  @BeforeEach
  void realRoot() throws Exception {
    root = tmp.toRealPath();
  }

  @Test
  void aPrivateDirectoryOfOurOwnIsTrustedAndAMissingOneIsMadePrivate() throws Exception {
    Path made = DataDirectory.prepare(root.resolve("a/b/data"));
    assertThat(made).isEqualTo(root.resolve("a/b/data"));
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(made)))
        .isEqualTo("rwx------");
    assertThat(DataDirectory.existing(made)).isEqualTo(made);
  }

  @Test
  void aLinkIsFollowedAndTheRealPathJudged() throws Exception {
    Path data = Files.createDirectories(root.resolve("real"));
    Path link = Files.createSymbolicLink(root.resolve("link"), data);
    assertThat(DataDirectory.existing(link)).isEqualTo(data);
    Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwxrwxrwx"));
    assertThatThrownBy(() -> DataDirectory.existing(link))
        .hasMessage("refusing the data directory " + data + ": it can be written by other users"
            + " (mode rwxrwxrwx); another user could replace the appliance's control socket."
            + " Fix it with: chmod go-w " + data);
  }

  @Test
  void aParentOthersCanWriteIsRefusedUnlessItIsSticky() throws Exception {
    Path parent = Files.createDirectories(root.resolve("shared"));
    Path data = Files.createDirectories(parent.resolve("data"));
    Files.setPosixFilePermissions(parent, PosixFilePermissions.fromString("rwxrwxrwx"));
    assertThatThrownBy(() -> DataDirectory.existing(data))
        .hasMessageStartingWith("refusing the directory " + parent + " above the data directory:"
            + " it can be written by other users (mode rwxrwxrwx)");
    assertThatThrownBy(() -> DataDirectory.prepare(parent.resolve("new")))
        .hasMessageStartingWith("refusing the directory " + parent);
    assertThat(parent.resolve("new")).doesNotExist();
    Files.setAttribute(parent, "unix:mode", 01777);
    assertThat(DataDirectory.existing(data)).isEqualTo(data);
  }

  @Test
  void aDirectoryOrSocketOfAnotherUserIsRefused() throws Exception {
    Assumptions.assumeTrue(DataDirectory.currentUid() == 0, "only root can give files away");
    Path data = Files.createDirectories(root.resolve("data"));
    Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwx------"));
    Path socket = data.resolve("control.sock");
    try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      server.bind(UnixDomainSocketAddress.of(socket));
      assertThat(DataDirectory.socket(DataDirectory.existing(data))).isEqualTo(socket);
      Files.setAttribute(socket, "unix:uid", 65534, LinkOption.NOFOLLOW_LINKS);
      assertThatThrownBy(() -> DataDirectory.socket(data))
          .hasMessageStartingWith("refusing the control socket " + socket
              + ": it belongs to uid 65534");
      Files.setAttribute(data, "unix:uid", 65534, LinkOption.NOFOLLOW_LINKS);
      assertThatThrownBy(() -> DataDirectory.existing(data))
          .hasMessageStartingWith("refusing the data directory " + data
              + ": it belongs to uid 65534");
    }
  }

  @Test
  void aLinkOrAFileInPlaceOfTheSocketIsRefused() throws Exception {
    Path data = Files.createDirectories(root.resolve("data"));
    Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwx------"));
    Files.createSymbolicLink(data.resolve("control.sock"), root.resolve("elsewhere.sock"));
    assertThatThrownBy(() -> DataDirectory.socket(data))
        .hasMessageContaining("is a symbolic link");
    Files.delete(data.resolve("control.sock"));
    Files.writeString(data.resolve("control.sock"), "");
    assertThatThrownBy(() -> DataDirectory.socket(data)).hasMessageContaining("is not a socket");
  }
}
