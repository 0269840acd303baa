package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.testkit.Wait;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The name-deny daemon's two ways of taking requests from the kernel: FUSE over io_uring (where
 * the host allows it: the fuse module's enable_uring) and /dev/fuse. The same file-heavy work,
 * run directly on the mount, gives the same results either way; the daemon says which way the
 * kernel used, and that is the way the host allows.
 */
class DenyfsTransportTest {
  private static final String WORK = String.join("\n",
      "set -e",
      "mkdir -p a/b",
      "i=0; while [ $i -lt 300 ]; do i=$((i + 1)); echo \"file $i\" > a/b/f$i.txt; done",
      "mv a/b/f1.txt a/moved.txt && ln -s moved.txt a/link && cat a/link",
      "echo files $(ls a/b | wc -l)",
      "head -c 3145728 /dev/urandom > big.bin && cp big.bin copy.bin && cmp big.bin copy.bin",
      "echo big $(wc -c < copy.bin)",
      "(echo x > .env) 2>/dev/null && echo env written || echo env refused",
      "(echo x > a/b/f2.txt.pem) 2>/dev/null && echo pem written || echo pem refused",
      "git init -q r && cd r",
      "i=0; while [ $i -lt 50 ]; do i=$((i + 1)); echo $i > g$i; done",
      "git add -A && git -c user.email=t@example.com -c user.name=t commit -qm one",
      "echo commits $(git rev-list --count HEAD) changed $(git status --short | wc -l)",
      "cd .. && rm -rf a r copy.bin",
      "echo left $(ls -A)");

  @org.junit.jupiter.api.io.TempDir Path tmp;
  private String helper;

  @BeforeEach
  void requireLayer() {
    helper = DenyfsDaemon.requireHelper();
  }

  @ParameterizedTest
  @ValueSource(strings = {"auto", "off"})
  void theSameWorkGivesTheSameResultsOverEitherTransport(String uring) throws Exception {
    try (DenyfsDaemon daemon = new DenyfsDaemon(helper, tmp, "--deny", ".env", "--deny", "*.pem",
        "--uring", uring)) {
      assertThat(daemon.sh(WORK)).isEqualTo(String.join("\n", "file 1", "files 299",
          "big 3145728", "env refused", "pem refused", "commits 1 changed 0", "left big.bin",
          ""));
      assertThat(Files.size(daemon.source.resolve("big.bin"))).isEqualTo(3145728);
      assertThat(daemon.source.resolve(".env")).doesNotExist();
      Wait.until(Duration.ofSeconds(10), "both refusals reported", () -> daemon.said
          .containsAll(List.of("file-write* /.env", "file-write* /a/b/f2.txt.pem")));
      boolean hostAllows = "auto".equals(uring) && hostAllowsFuseOverIoUring();
      assertThat(daemon.said.contains("transport io_uring"))
          .as("requests came over io_uring (host allows: %s)", hostAllows).isEqualTo(hostAllows);
    }
  }

  /**
   * Without passthrough (a daemon not run as root, or a kernel without it) the daemon writes the
   * file itself: a write opened with O_DIRECT arrives in a buffer with no block alignment, which
   * the file system underneath refuses (EINVAL) if the daemon's descriptor is O_DIRECT too.
   */
  @ParameterizedTest
  @ValueSource(strings = {"auto", "off"})
  void directWritesReachTheFileWithoutPassthrough(String uring) throws Exception {
    try (DenyfsDaemon daemon = new DenyfsDaemon(helper, tmp, "--deny", ".env", "--uring", uring,
        "--passthrough", "off")) {
      assertThat(daemon.sh(String.join("\n",
          "head -c 3145728 /dev/urandom > ../data.bin",
          "dd if=../data.bin of=direct.bin bs=1M oflag=direct status=none && echo written",
          "cmp ../data.bin direct.bin && echo same"))).isEqualTo("written\nsame\n");
    }
  }

  /**
   * The kernel offers FUSE over io_uring (Linux 6.14+) only when its fuse module allows it, and
   * the daemon can make rings only where io_uring itself is not switched off.
   */
  private static boolean hostAllowsFuseOverIoUring() throws IOException {
    Path p = Path.of("/sys/module/fuse/parameters/enable_uring");
    Path off = Path.of("/proc/sys/kernel/io_uring_disabled");
    return Files.exists(p) && Files.readString(p).strip().equals("Y")
        && !(Files.exists(off) && Files.readString(off).strip().equals("2"));
  }
}
