package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.testkit.RunningAppliance;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pushgate exec} with no appliance on its data directory: pushgate's own failure (125, as
 * its help says), said in plain words, and nothing made in the working directory, neither when
 * there is no control socket nor when one that stopped left its socket behind.
 */
class ExecWithoutApplianceTest {
  @TempDir Path tmp;

  record Exec(int exit, String stderr) {}

  @Test
  void withNoControlSocketExecExits125AndCreatesNoDirectory() throws Exception {
    Path data = dataDir();
    Path cwd = Files.createDirectories(tmp.resolve("cwd"));

    Exec exec = exec(cwd, data);

    assertThat(exec.exit()).as(exec.stderr()).isEqualTo(125);
    assertThat(exec.stderr()).contains("pushgate: no appliance is running on " + data)
        .contains("pushgate serve --data-dir " + data);
    assertPlain(exec.stderr());
    assertEmpty(cwd);
  }

  @Test
  void withASocketLeftByAStoppedApplianceExecExits125AndCreatesNoDirectory() throws Exception {
    Path data = dataDir();
    // A socket nobody listens on any more: bound, then closed (the file stays).
    try (ServerSocketChannel left = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      left.bind(UnixDomainSocketAddress.of(data.resolve("control.sock")));
    }
    assertThat(data.resolve("control.sock")).exists();
    Path cwd = Files.createDirectories(tmp.resolve("cwd"));

    Exec exec = exec(cwd, data);

    assertThat(exec.exit()).as(exec.stderr()).isEqualTo(125);
    assertThat(exec.stderr()).contains("the appliance does not answer on its control socket")
        .contains("is it running?");
    assertPlain(exec.stderr());
    assertEmpty(cwd);
  }

  private Path dataDir() throws Exception {
    Path data = tmp.toRealPath().resolve("data");
    Files.createDirectory(data, PosixFilePermissions.asFileAttribute(
        PosixFilePermissions.fromString("rwx------")));
    return data;
  }

  private static void assertPlain(String stderr) {
    assertThat(stderr).doesNotContainPattern("[A-Za-z]+(Exception|Error)\\b")
        .doesNotContain("java.").doesNotContain("\tat ");
  }

  private static void assertEmpty(Path cwd) throws Exception {
    try (Stream<Path> made = Files.list(cwd)) {
      assertThat(made).as("what exec left in its working directory").isEmpty();
    }
  }

  private static Exec exec(Path cwd, Path data) throws Exception {
    List<String> cmd = List.of("java", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar",
        RunningAppliance.jar().toString(), "exec", "--data-dir", data.toString(),
        "--repo", "acme/widget", "--", "true");
    Process p = new ProcessBuilder(cmd).directory(cwd.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("exec finished").isTrue();
    return new Exec(p.exitValue(), err);
  }
}
