package dev.pushgate.appliance.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.pushgate.appliance.DataDirectory;
import dev.pushgate.testkit.Host;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A control socket that is there but not an appliance of this user's is named for what it is. */
class ControlSocketOwnerTest {
  @TempDir Path tmp;

  @Test
  void aFileThatIsNotASocketIsSaidToBeOne() throws Exception {
    Path data = DataDirectory.prepare(tmp.resolve("data"));
    Files.writeString(data.resolve("control.sock"), "");
    CliRun r = CliRun.of("runs", "--data-dir", data.toString());
    assertThat(r.status()).isEqualTo(1);
    assertThat(r.err()).contains("control.sock is not a socket but a file")
        .doesNotContain("is it running");
  }

  @Test
  void aSocketOfAnotherUserNamesItsOwner() throws Exception {
    assumeTrue(Host.isRoot(), "only root can give a socket to another user");
    Path data = DataDirectory.prepare(tmp.resolve("data"));
    Path socket = data.resolve("control.sock");
    try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      server.bind(UnixDomainSocketAddress.of(socket));
      Files.setOwner(socket, socket.getFileSystem().getUserPrincipalLookupService()
          .lookupPrincipalByName("nobody"));
      CliRun r = CliRun.of("approvals", "--data-dir", data.toString());
      assertThat(r.status()).isEqualTo(1);
      assertThat(r.err()).contains(socket + " belongs to user nobody, not to you (uid 0): run"
          + " as nobody").contains("or pass --data-dir").doesNotContain("is it running");
    }
  }

  @Test
  void aSocketNobodyAnswersOnIsAskedAbout() throws Exception {
    Path data = DataDirectory.prepare(tmp.resolve("data"));
    Path socket = data.resolve("control.sock");
    ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    server.bind(UnixDomainSocketAddress.of(socket));
    server.close(); // the file stays, as a crashed appliance leaves it
    CliRun r = CliRun.of("runs", "--data-dir", data.toString());
    assertThat(r.status()).isEqualTo(1);
    assertThat(r.err()).contains("is it running?").doesNotContain("Exception");
  }
}
