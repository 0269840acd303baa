package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The name-deny daemon says which libfuse it was built on and, for kernel passthrough and FUSE
 * over io_uring, whether that libfuse speaks them or the daemon does (its own code is compiled
 * only where the library lacks them: libfuse has passthrough since 3.17, FUSE over io_uring since
 * 3.18). Checked against the libfuse installed here, as pkg-config reports it.
 */
class DenyfsBuildTest {

  @Test
  void versionNamesTheInstalledLibfuseAndWhoSpeaksEachPart() throws Exception {
    String helper = helper();
    String libfuse = run("pkg-config", "--modversion", "fuse3").strip();
    String line = run(helper, "--version").strip();

    assertThat(line).startsWith("pushgate-denyfs: libfuse " + libfuse + "; ");
    String passthrough = atLeast(libfuse, 3, 17) ? "passthrough by libfuse " + libfuse
        : "passthrough by the daemon (libfuse " + libfuse + " lacks fuse_passthrough_open)";
    assertThat(line).contains("; " + passthrough + ";");
    if (!atLeast(libfuse, 3, 18)) {
      assertThat(line).containsAnyOf(
          "; io_uring by the daemon (libfuse " + libfuse + " lacks it)", "; io_uring none (");
    }
  }

  private static String helper() {
    NameDenyLayer.Availability a = NameDenyLayer.Availability.probe();
    Assumptions.assumeTrue(a.available(), () -> "the name-deny layer cannot run here: " + a.reason());
    return a.helper();
  }

  private static boolean atLeast(String version, int major, int minor) {
    String[] p = version.split("[.-]");
    int ma = Integer.parseInt(p[0]);
    int mi = Integer.parseInt(p[1]);
    return ma > major || (ma == major && mi >= minor);
  }

  private static String run(String... argv) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("%s: %s", String.join(" ", argv), out).isZero();
    return out;
  }
}
