package dev.pushgate.appliance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One serve per data directory and per runtime directory: a second is refused with what to do,
 * whether the first holds the lock or only its socket answers (its lock file deleted); a stopped
 * or crashed one frees it.
 */
class ServeLockTest {
  @TempDir Path dir;

  @Test
  void aSecondServeOnTheSameDataDirectoryIsRefusedNamingTheFirst() throws Exception {
    Path socket = dir.resolve(DataDirectory.CONTROL_SOCKET);
    try (ServeLock first = ServeLock.hold(dir, socket, ServeLock.Kind.DATA)) {
      assertThatThrownBy(() -> ServeLock.hold(dir, socket, ServeLock.Kind.DATA))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("another pushgate serve is using the data directory " + dir)
          .hasMessageContaining("(process " + ProcessHandle.current().pid() + ")")
          .hasMessageContaining("another --data-dir");
    }
    try (ServeLock again = ServeLock.hold(dir, socket, ServeLock.Kind.DATA)) {
      assertThat(dir.resolve(ServeLock.FILE)).exists();
    }
  }

  /** The lock file deleted while a serve runs ("a stale lock"): its socket still answers. */
  @Test
  void aServeWhoseLockFileWasDeletedIsStillSeenByTheSocketItAnswersOn() throws Exception {
    Path socket = dir.resolve("gateway.sock");
    try (ServerSocketChannel live = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      live.bind(UnixDomainSocketAddress.of(socket));
      assertThatThrownBy(() -> ServeLock.hold(dir, socket, ServeLock.Kind.RUNTIME))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("another pushgate serve is using the runtime directory " + dir)
          .hasMessageContaining("its gateway.sock answers")
          .hasMessageContaining("another --runtime-dir");
    }
    // closed, its file left behind as a crash leaves it: nobody answers, the directory is free
    assertThat(socket).exists();
    try (ServeLock free = ServeLock.hold(dir, socket, ServeLock.Kind.RUNTIME)) {
      assertThat(Files.readString(dir.resolve(ServeLock.FILE)).strip())
          .isEqualTo(String.valueOf(ProcessHandle.current().pid()));
    }
  }

  /** On the old code the second took over the first's control socket, database and caches. */
  @Test
  void aSecondApplianceOnARunningOnesDataDirectoryDoesNotStartAndTheFirstKeepsServing()
      throws Exception {
    Path data = dir.resolve("data");
    try (TestAppliance first = TestAppliance.start(data, null)) {
      assertThatThrownBy(() -> TestAppliance.start(data, null).close())
          .hasMessageContaining("another pushgate serve is using the data directory");
      // an operator's clean-up of "a stale lock": on the old code the next serve then started
      // beside the first, ran its recovery over the first one's runs and took its control socket
      Files.delete(data.resolve(ServeLock.FILE));
      assertThatThrownBy(() -> TestAppliance.start(data, null).close())
          .hasMessageContaining("another pushgate serve is using the data directory")
          .hasMessageContaining("was serve.lock deleted while it served?");
      assertThat(first.get("/healthz").statusCode()).isEqualTo(200);
      assertThat(data.resolve(DataDirectory.CONTROL_SOCKET)).exists();
    }
    TestAppliance.start(data, null).close();
  }
}
