package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release archive {@code mvn package} builds, unpacked as an operator unpacks it (with
 * {@code tar}) and run through its own {@code bin/pushgate}, also through a symlink to it.
 */
class ReleaseArchiveTest {
  @TempDir Path tmp;

  @Test
  void unpacksToARunnableInstallWhoseExampleConfigIsAccepted() throws Exception {
    Path archive = Path.of(System.getProperty("pushgate.archive"));
    String version = System.getProperty("pushgate.version");
    assertThat(archive).isRegularFile().hasFileName("pushgate-" + version + ".tar.gz");
    run(tmp, Map.of(), "tar", "xzf", archive.toString()).expectOk();

    Path home = tmp.resolve("pushgate-" + version);
    for (String f : List.of("lib/pushgate.jar", "bin/pushgate", "bin/pushgate-hook",
        "share/systemd/pushgate.service", "etc/pushgate.yaml.example", "README.md",
        "docs/operations.md")) {
      assertThat(home.resolve(f)).as(f).isRegularFile();
    }
    assertThat(Files.isExecutable(home.resolve("bin/pushgate"))).isTrue();
    assertThat(Files.isExecutable(home.resolve("bin/pushgate-hook"))).isTrue();

    Path launcher = home.resolve("bin/pushgate");
    assertThat(run(tmp, Map.of(), launcher.toString(), "--version").expectOk())
        .contains("pushgate ");
    // As installed in a PATH directory: the script finds its jar through the link.
    Path links = Files.createDirectories(tmp.resolve("usr/local/bin"));
    Files.createSymbolicLink(links.resolve("pushgate"), launcher);
    String check = run(tmp, Map.of("JAVA_OPTS", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"),
        links.resolve("pushgate").toString(), "config", "check", "--config",
        home.resolve("etc/pushgate.yaml.example").toString(),
        "--data-dir", tmp.resolve("data").toString()).expectOk();
    assertThat(check).contains("# configuration file: " + home.resolve("etc/pushgate.yaml.example"))
        .containsPattern("port: +7070 +# file").contains("# ok");
  }

  @Test
  void javaAndJavaOptsAreHonoured() throws Exception {
    Path archive = Path.of(System.getProperty("pushgate.archive"));
    run(tmp, Map.of(), "tar", "xzf", archive.toString()).expectOk();
    Path launcher = tmp.resolve("pushgate-" + System.getProperty("pushgate.version"))
        .resolve("bin/pushgate");
    // A JAVA that prints what it was given shows the options and the jar the script passes.
    Path fakeJava = tmp.resolve("fake-java");
    Files.writeString(fakeJava, "#!/bin/sh\necho \"ARGS $*\"\n");
    fakeJava.toFile().setExecutable(true);
    String out = run(tmp, Map.of("JAVA", fakeJava.toString(), "JAVA_OPTS", "-Xmx64m -Dx=y"),
        launcher.toString(), "serve", "--port", "0").expectOk();
    // The name-deny layer's daemon, when the build could build it (CI installs libfuse3-dev).
    boolean denyfs = Files.isExecutable(launcher.getParent().resolveSibling("libexec/pushgate-denyfs"));
    if ("1".equals(System.getenv("SANDBOX_REQUIRE_BWRAP"))) {
      assertThat(denyfs).as("libexec/pushgate-denyfs in the archive").isTrue();
    }
    assertThat(out.strip()).matches("ARGS -Xmx64m -Dx=y "
        + (denyfs ? "-Dpushgate\\.denyfs=/.*/libexec/pushgate-denyfs " : "")
        + "-jar /.*/lib/pushgate\\.jar serve --port 0");
  }

  @Test
  void theUnitStartsWithoutAConfigFileAndStopsAndReloadsCleanly() throws Exception {
    Path archive = Path.of(System.getProperty("pushgate.archive"));
    run(tmp, Map.of(), "tar", "xzf", archive.toString()).expectOk();
    Path home = tmp.resolve("pushgate-" + System.getProperty("pushgate.version"));
    String unit = Files.readString(home.resolve("share/systemd/pushgate.service"));
    String execStart = unit.substring(unit.indexOf("ExecStart="));
    execStart = execStart.substring(0, execStart.indexOf("\n", execStart.indexOf("--data-dir")));
    // a configuration file named on the command line that nothing creates restart-loops the unit
    assertThat(execStart).doesNotContain("--config").contains("--runtime-dir %t/pushgate");
    assertThat(unit).contains("\nRuntimeDirectory=pushgate\n", "\nRuntimeDirectoryMode=0750\n",
        "\nSuccessExitStatus=143\n", "\nExecReload=/bin/kill -HUP $MAINPID\n",
        "\nEnvironmentFile=-/etc/pushgate/pushgate.env\n");
    // The name-deny layer needs /dev/fuse visible to the appliance's probe (docs/operations.md):
    // the device cgroup, not PrivateDevices' private /dev without it.
    assertThat(unit).contains("\nPrivateDevices=false\n", "\nDevicePolicy=closed\n",
        "\nDeviceAllow=/dev/fuse rw\n", "\nNoNewPrivileges=true\n", "\nCapabilityBoundingSet=\n")
        .doesNotContain("\nPrivateDevices=true");
    Path analyze = Path.of("/usr/bin/systemd-analyze");
    if (Files.isExecutable(analyze)) {
      // verify wants the ExecStart binary to exist: point it at the unpacked launcher
      Path copy = tmp.resolve("pushgate.service");
      Files.writeString(copy, unit.replace("/opt/pushgate/bin/pushgate",
          home.resolve("bin/pushgate").toString()));
      Result verify = run(tmp, Map.of(), analyze.toString(), "verify", copy.toString());
      assertThat(verify.output()).doesNotContain("pushgate.service:");
      verify.expectOk();
      // The drop-in docs/operations.md gives hosts whose service launches runs is valid too.
      String dropIn = Files.readString(Path.of("../docs/operations.md"));
      dropIn = dropIn.substring(dropIn.indexOf("```ini\n"));
      dropIn = dropIn.substring(dropIn.indexOf("[Service]\n") + "[Service]\n".length());
      dropIn = dropIn.substring(0, dropIn.indexOf("```")).replaceAll("(?m)^ +", "");
      assertThat(dropIn).contains("RestrictNamespaces=false", "NoNewPrivileges=false");
      Path combined = tmp.resolve("combined.service");
      Files.writeString(combined, Files.readString(copy).replace("\n[Install]",
          "\n" + dropIn + "\n[Install]"));
      Result withDropIn = run(tmp, Map.of(), analyze.toString(), "verify", combined.toString());
      assertThat(withDropIn.output()).doesNotContain("combined.service:");
      withDropIn.expectOk();
    }
  }

  private record Result(int exit, String output, List<String> command) {
    String expectOk() {
      assertThat(exit).as(String.join(" ", command) + " exits 0; output:\n" + output).isZero();
      return output;
    }
  }

  private static Result run(Path dir, Map<String, String> env, String... command)
      throws Exception {
    ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile())
        .redirectErrorStream(true);
    pb.environment().putAll(env);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError(String.join(" ", command) + " did not finish:\n" + out);
    }
    return new Result(p.exitValue(), out, new ArrayList<>(List.of(command)));
  }
}
