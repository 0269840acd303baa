package dev.pushgate.gateway.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SystemCaBundleTest {
  @TempDir Path dir;

  @Test
  void aRunsBundleIsTheSystemsCasAndThenTheRunCa() throws Exception {
    Path system = Files.writeString(dir.resolve("system.crt"), "SYSTEM CA"); // no final newline
    SystemCaBundle bundle = new SystemCaBundle(system);

    bundle.writeWith(dir.resolve("a.pem"), "RUN CA A\n");

    assertThat(Files.readString(dir.resolve("a.pem"))).isEqualTo("SYSTEM CA\nRUN CA A\n");
  }

  @Test
  void aSystemBundleReplacedSinceIsReadAgain() throws Exception {
    Path system = Files.writeString(dir.resolve("system.crt"), "OLD CA\n");
    SystemCaBundle bundle = new SystemCaBundle(system);
    bundle.writeWith(dir.resolve("a.pem"), "RUN CA\n");

    // as update-ca-certificates does: a new file renamed over the old one
    Path next = Files.writeString(dir.resolve("system.crt.new"), "NEW CA, LONGER\n");
    Files.move(next, system, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    bundle.writeWith(dir.resolve("b.pem"), "RUN CA\n");

    assertThat(Files.readString(dir.resolve("b.pem"))).isEqualTo("NEW CA, LONGER\nRUN CA\n");
  }

  @Test
  void withoutASystemBundleItHoldsTheRunCaAlone() throws Exception {
    SystemCaBundle bundle = new SystemCaBundle(dir.resolve("missing.crt"));

    bundle.writeWith(dir.resolve("a.pem"), "RUN CA\n");

    assertThat(Files.readString(dir.resolve("a.pem"))).isEqualTo("RUN CA\n");
  }
}
