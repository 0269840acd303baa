package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.pushgate.testkit.Wait;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * The name-deny daemon run directly (no launcher, no bubblewrap) on a fresh source and mount in
 * DIR, its output lines collected; closing ends it as the launcher does.
 */
final class DenyfsDaemon implements AutoCloseable {
  final Path source;
  final Path mount;
  final List<String> said = new CopyOnWriteArrayList<>();
  private final Process process;
  private final Thread reader;

  /** The helper the host has; skips without it, or fails when CI asks for real bubblewrap. */
  static String requireHelper() {
    NameDenyLayer.Availability a = NameDenyLayer.Availability.probe();
    if (!a.available()) {
      if ("1".equals(System.getenv("SANDBOX_REQUIRE_BWRAP"))) {
        fail("SANDBOX_REQUIRE_BWRAP=1 but the name-deny layer cannot run: " + a.reason());
      }
      Assumptions.abort("the name-deny layer cannot run here: " + a.reason());
    }
    return a.helper();
  }

  DenyfsDaemon(String helper, Path dir, String... options) throws Exception {
    source = Files.createDirectories(dir.resolve("source"));
    mount = Files.createDirectories(dir.resolve("mount"));
    List<String> argv = new ArrayList<>(List.of(helper, "--source", source.toString(),
        "--mountpoint", mount.toString()));
    argv.addAll(List.of(options));
    process = new ProcessBuilder(argv).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    reader = new Thread(() -> {
      try (BufferedReader out = new BufferedReader(
          new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = out.readLine()) != null; ) {
          said.add(line);
        }
      } catch (IOException e) {
        // the daemon ended
      }
    });
    reader.start();
    Wait.until(Duration.ofSeconds(20), "the daemon mounted", () -> said.contains("ready"));
  }

  /** Runs SCRIPT in the mount: its output, once it exited 0. */
  String sh(String script) throws Exception {
    Process work = new ProcessBuilder("/bin/sh", "-c", script).directory(mount.toFile())
        .redirectErrorStream(true).start();
    String out = new String(work.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(work.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(work.exitValue()).as(out).isZero();
    return out;
  }

  /** Ends the daemon as the launcher does (its standard input closed): no mount is left. */
  @Override
  public void close() throws Exception {
    process.getOutputStream().close();
    assertThat(process.waitFor(20, TimeUnit.SECONDS)).as("the daemon ended").isTrue();
    reader.join(5000);
    assertThat(Files.readAllLines(Path.of("/proc/self/mountinfo")))
        .noneMatch(l -> l.contains(" " + mount + " "));
  }
}
