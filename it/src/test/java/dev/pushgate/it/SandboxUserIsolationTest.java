package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.RunningAppliance;
import dev.pushgate.testkit.Wait;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 14, item j: as root, {@code pushgate exec} used to run every sandbox as {@code nobody}, so
 * any daemon of the host running as {@code nobody} read a live run's tokens in
 * {@code /proc/PID/environ} and in the staged env file, and wrote into its lent workdir. Each
 * launch now runs as a user id of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SandboxUserIsolationTest {
  private static final int NOBODY = 65534;

  @RegisterExtension
  static final ApplianceExtension app = ExecRules.appliance();

  Path rules;

  /** One {@code pushgate exec} still running, where its output goes, and its workdir. */
  record Started(Process process, Path out, Path err, Path work) {}

  @BeforeAll
  void start() throws Exception {
    rules = ExecRules.mainDenied(app);
    Assumptions.assumeTrue(uid(Path.of("/proc/self")) == 0,
        "only pushgate running as root drops to a sandbox user");
  }

  @Test
  void concurrentRunsHaveUserIdsOfTheirOwnThatNobodyCannotReadNorWriteInto() throws Exception {
    Started a = start("work-a");
    Started b = start("work-b");
    try {
      awaitReady(a);
      awaitReady(b);
      int uidA = Integer.parseInt(Files.readString(a.work().resolve("uid")).strip());
      int uidB = Integer.parseInt(Files.readString(b.work().resolve("uid")).strip());
      assertThat(uidA).isNotEqualTo(uidB).isNotEqualTo(NOBODY).isNotZero();
      assertThat(uidB).isNotEqualTo(NOBODY).isNotZero();
      for (int uid : List.of(uidA, uidB)) {
        long pid = sandboxedPidHoldingTheRunToken(uid);
        assertThat(asNobody("cat", "/proc/" + pid + "/environ"))
            .as("nobody reads the environment of sandboxed pid %s", pid)
            .isNotEqualTo(0);
        Path envFile = stagedEnvFile(uid);
        assertThat(Files.readString(envFile)).contains("PUSHGATE_RUN_TOKEN");
        assertThat(asNobody("cat", envFile.toString()))
            .as("nobody reads the staged env file %s", envFile).isNotEqualTo(0);
      }
      for (Started s : List.of(a, b)) {
        assertThat(asNobody("touch", s.work().resolve("planted-by-nobody").toString()))
            .as("nobody writes into the lent workdir").isNotEqualTo(0);
        assertThat(s.work().resolve("planted-by-nobody")).doesNotExist();
      }
    } finally {
      Files.writeString(a.work().resolve("go"), "");
      Files.writeString(b.work().resolve("go"), "");
    }
    for (Started s : List.of(a, b)) {
      finish(s);
      // Given back to its owner once the run ended.
      assertThat(uid(s.work().resolve("uid"))).isEqualTo(uid(s.work()));
    }
  }

  @Test
  void consecutiveRunsHaveDifferentUserIds() throws Exception {
    Started first = start("work-c");
    awaitReady(first);
    Files.writeString(first.work().resolve("go"), "");
    finish(first);
    Started second = start("work-d");
    awaitReady(second);
    Files.writeString(second.work().resolve("go"), "");
    finish(second);
    String one = Files.readString(first.work().resolve("uid")).strip();
    String two = Files.readString(second.work().resolve("uid")).strip();
    assertThat(one).isNotEqualTo(two).isNotEqualTo(Integer.toString(NOBODY));
    assertThat(two).isNotEqualTo(Integer.toString(NOBODY));
  }

  private Started start(String name) throws Exception {
    Path work = Files.createDirectories(app.dir().resolve(name));
    List<String> cmd = new ArrayList<>(List.of("java", "-jar", RunningAppliance.jar().toString(),
        "exec", "--data-dir", app.get().dataDir.toString(), "--repo", "acme/widget",
        "--workdir", work.toString(), "--rules", rules.toString(), "--", "sh", "-c",
        "id -u > uid; touch ready; while [ ! -e go ]; do sleep 0.05; done"));
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(work.toFile());
    Map<String, String> e = pb.environment();
    e.keySet().removeIf(k -> k.startsWith("GIT_") || k.equals("GH_TOKEN"));
    e.put("HOME", Files.createDirectories(app.dir().resolve("home")).toString());
    Path out = Files.createTempFile("exec-out", ".txt");
    Path err = Files.createTempFile("exec-err", ".txt");
    pb.redirectOutput(out.toFile()).redirectError(err.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    return new Started(pb.start(), out, err, work);
  }

  private static void awaitReady(Started s) throws Exception {
    Wait.until(Duration.ofSeconds(90), "the sandboxed command to get ready", () -> {
      if (Files.exists(s.work().resolve("ready"))) {
        return true;
      }
      if (!s.process().isAlive()) {
        fail("the sandboxed command never got ready:\n" + Files.readString(s.err()));
      }
      return false;
    });
  }

  private static void finish(Started s) throws Exception {
    if (!s.process().waitFor(120, TimeUnit.SECONDS)) {
      s.process().destroyForcibly();
      fail("pushgate exec did not finish in 120 s:\n" + Files.readString(s.err()));
    }
    assertThat(s.process().exitValue()).as(Files.readString(s.err())).isZero();
    Files.delete(s.out());
    Files.delete(s.err());
  }

  /** The host pid of the sandboxed process of that uid whose environment holds the run token. */
  private static long sandboxedPidHoldingTheRunToken(int uid) throws IOException {
    try (var procs = Files.list(Path.of("/proc"))) {
      for (Path proc : procs.toList()) {
        String name = proc.getFileName().toString();
        if (!name.chars().allMatch(Character::isDigit)) {
          continue;
        }
        try {
          if (uid(proc) != uid) {
            continue;
          }
          String env = new String(Files.readAllBytes(proc.resolve("environ")),
              StandardCharsets.UTF_8);
          if (env.contains("PUSHGATE_RUN_TOKEN=pgr_")) {
            return Long.parseLong(name);
          }
        } catch (IOException e) {
          // The process ended meanwhile.
        }
      }
    }
    throw new AssertionError("no process of uid " + uid + " holds a run token");
  }

  /** The env file of the launch of that uid, staged in the system temporary directory. */
  private static Path stagedEnvFile(int uid) throws IOException {
    Path tmpDir = Path.of(System.getProperty("java.io.tmpdir"));
    try (var dirs = Files.newDirectoryStream(tmpDir, "pushgate-sandbox-*")) {
      for (Path dir : dirs) {
        Path env = dir.resolve("env");
        if (Files.isRegularFile(env, LinkOption.NOFOLLOW_LINKS) && uid(env) == uid) {
          return env;
        }
      }
    }
    throw new AssertionError("no staged env file of uid " + uid + " in " + tmpDir);
  }

  /** Runs the command as nobody, as any daemon of the host might; its exit code. */
  private static int asNobody(String... command) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("setpriv", "--reuid=" + NOBODY,
        "--regid=" + NOBODY, "--clear-groups", "--"));
    cmd.addAll(List.of(command));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      fail("setpriv did not finish in 30 s");
    }
    // Only whether it got a token: a failure must not print the token it got.
    assertThat(output.contains("PUSHGATE_RUN_TOKEN") || output.contains("GH_TOKEN"))
        .as("nobody got the run's tokens from %s", String.join(" ", command)).isFalse();
    return p.exitValue();
  }

  private static int uid(Path p) throws IOException {
    return (Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS);
  }
}
