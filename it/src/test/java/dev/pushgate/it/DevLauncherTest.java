package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The repository's {@code ./pushgate} builds on first use and shows one line per module while it
 * does; a failed build shows Maven's errors. Maven and java are stand-ins here, so that the test
 * reads the script's behaviour without a build.
 */
class DevLauncherTest {
  @TempDir Path tmp;

  @Test
  void theFirstBuildShowsOneLinePerModuleThenRunsTheJar() throws Exception {
    Path repo = checkout("""
        echo '[INFO] Scanning for projects...'
        echo '[INFO] Building pushgate 0.1.0-SNAPSHOT                                   [1/2]'
        echo '[INFO] Downloading from central: https://repo.example/a.pom'
        echo '[INFO] Downloaded from central: https://repo.example/a.pom'
        echo '[INFO] Building pushgate appliance 0.1.0-SNAPSHOT                         [2/2]'
        echo '[INFO] BUILD SUCCESS'
        mkdir -p appliance/target && : > appliance/target/pushgate.jar
        """);
    Run first = launch(repo, "--version");
    assertThat(first.exit).isZero();
    assertThat(first.stderr.lines().filter(l -> l.startsWith("[pushgate] building module")))
        .containsExactly("[pushgate] building module pushgate (1/2)...",
            "[pushgate] building module pushgate appliance (2/2)...");
    assertThat(first.stderr).contains("[pushgate] downloading dependencies")
        .containsPattern("\\[pushgate\\] built in \\d+ s").doesNotContain("Scanning");
    assertThat(first.stdout.strip()).isEqualTo("JAVA -jar " + repo.toRealPath()
        + "/appliance/target/pushgate.jar --version");

    Run second = launch(repo, "--version");
    assertThat(second.stderr).doesNotContain("[pushgate] build");
  }

  @Test
  void aFailedBuildShowsMavensErrorsAndExitsNonZero() throws Exception {
    Path repo = checkout("""
        echo '[INFO] Building pushgate types 0.1.0-SNAPSHOT                             [1/2]'
        echo '[ERROR] COMPILATION ERROR : Foo.java:[3,1] class, interface, or enum expected'
        exit 1
        """);
    Run run = launch(repo, "serve");
    assertThat(run.exit).isNotZero();
    assertThat(run.stderr).contains("[pushgate] building module pushgate types (1/2)...")
        .contains("[pushgate] the build failed:").contains("[ERROR] COMPILATION ERROR")
        .contains("[pushgate] Maven's whole output: ");
    assertThat(run.stdout).doesNotContain("JAVA");
  }

  /** A copy of the launcher beside a stand-in {@code mvn} running {@code mvnScript}. */
  private Path checkout(String mvnScript) throws Exception {
    Path repo = Files.createDirectories(tmp.resolve("repo"));
    Files.copy(Path.of(System.getProperty("user.dir")).resolve("../pushgate"),
        repo.resolve("pushgate"));
    Path bin = Files.createDirectories(tmp.resolve("bin"));
    executable(bin.resolve("mvn"), "#!/bin/sh\n" + mvnScript);
    executable(bin.resolve("java"), "#!/bin/sh\necho \"JAVA $*\"\n");
    return repo;
  }

  private static void executable(Path file, String text) throws Exception {
    Files.writeString(file, text);
    assertThat(file.toFile().setExecutable(true)).isTrue();
  }

  private record Run(int exit, String stdout, String stderr) {}

  private Run launch(Path repo, String... args) throws Exception {
    String[] cmd = new String[args.length + 2];
    cmd[0] = "bash";
    cmd[1] = repo.resolve("pushgate").toString();
    System.arraycopy(args, 0, cmd, 2, args.length);
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(tmp.toFile());
    pb.environment().put("PATH", tmp.resolve("bin") + ":" + System.getenv("PATH"));
    pb.environment().put("TMPDIR", tmp.toString());
    pb.redirectError(tmp.resolve("stderr").toFile()).redirectOutput(tmp.resolve("stdout").toFile());
    Process p = pb.start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return new Run(p.exitValue(), Files.readString(tmp.resolve("stdout"), StandardCharsets.UTF_8),
        Files.readString(tmp.resolve("stderr"), StandardCharsets.UTF_8));
  }
}
