package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.fail;

import dev.pushgate.policy.Mode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Assumptions;

/** What the tests that start real bubblewrap share. */
final class RealBwrap {
  private RealBwrap() {}

  /**
   * Skips the test when bwrap or socat is missing, or fails it when SANDBOX_REQUIRE_BWRAP=1 (as
   * CI sets it): there a missing tool must never pass as a skipped test.
   */
  static void require() {
    Executables path = Executables.system();
    List<String> missing = new ArrayList<>();
    for (String tool : List.of("bwrap", "socat", "curl")) {
      if (!path.onPath(tool)) {
        missing.add(tool);
      }
    }
    if (missing.isEmpty()) {
      return;
    }
    if ("1".equals(System.getenv("SANDBOX_REQUIRE_BWRAP"))) {
      fail("SANDBOX_REQUIRE_BWRAP=1 but this host lacks " + missing);
    }
    Assumptions.abort("this host lacks " + missing + "; set SANDBOX_REQUIRE_BWRAP=1 to fail instead");
  }

  /** Lets the sandbox user (nobody, when the tests run as root) through a test's temp dir. */
  static Path searchable(Path dir) throws IOException {
    Path real = dir.toRealPath();
    Files.setPosixFilePermissions(real, PosixFilePermissions.fromString("rwx--x--x"));
    return real;
  }

  /** A planner on a Linux host with bubblewrap and socat. */
  static SandboxPlanner planner(Path home, Map<String, String> hostEnv, SandboxSwitch sw) {
    return new SandboxPlanner(BackendProbe.probe(Platform.LINUX, n -> true), sw, false, home,
        EnvironmentVariables.of(hostEnv), EgressLists.embedded(), PassedVariables.NONE);
  }

  /** A run's directories in a test's temp dir: its writable workdir, config dir and home. */
  record RunDirs(Path work, Path config, Path home) {
    static RunDirs in(Path tmp) throws IOException {
      Path root = searchable(tmp);
      return new RunDirs(Files.createDirectories(root.resolve("agents/a1/work")),
          Files.createDirectories(root.resolve("agents/a1/config")),
          Files.createDirectories(root.resolve("home/u")));
    }

    /** A chat-mode plan for these directories under the default rules. */
    SandboxPlan underDefaultRules() {
      return RealBwrap.underDefaultRules(work, config, home);
    }
  }

  /**
   * A chat-mode plan under the default rules (the default deny globs, so the name-deny layer runs)
   * with {@code work} writable, {@code config} read-only and {@code home} as the host's home.
   */
  static SandboxPlan underDefaultRules(Path work, Path config, Path home) {
    RunPaths paths = new RunPaths(work.toString(), config.toString(), null, null,
        List.of(), List.of(), List.of());
    SandboxRequest request = SandboxRequest.builder("space-1", "ws-1", Runner.ACP, paths)
        .agentId("a1").mode(Mode.CHAT).denyWriteGlobs(DenyWriteGlobs.DEFAULT)
        .build();
    return planner(home, Map.of("PATH", "/usr/bin:/bin", "HOME", home.toString()),
        SandboxSwitch.ON).withNameDenyLayer(NameDenyLayer.Availability.probe()).plan(request);
  }

  /** What one launch did. */
  record Run(int exit, String stdout, String stderr, List<SandboxEvent> events,
      SandboxProcess process) {
    List<SandboxViolation> violations() {
      List<SandboxViolation> out = new ArrayList<>();
      for (SandboxEvent e : events) {
        if (e instanceof SandboxEvent.Violation v) {
          out.add(v.violation());
        }
      }
      return out;
    }
  }

  static Run run(SandboxLauncher launcher, LaunchRequest request) throws Exception {
    List<SandboxEvent> events = new java.util.concurrent.CopyOnWriteArrayList<>();
    SandboxProcess p = launcher.launch(request, events::add);
    OptionalInt code = p.waitFor(Duration.ofSeconds(90));
    if (code.isEmpty()) {
      p.kill("test timeout");
      fail("the sandboxed command did not end in 90 s: " + events);
    }
    StringBuilder out = new StringBuilder();
    StringBuilder err = new StringBuilder();
    for (SandboxEvent e : events) {
      if (e instanceof SandboxEvent.Stdout s) {
        out.append(s.data());
      } else if (e instanceof SandboxEvent.Stderr s) {
        err.append(s.data());
      }
    }
    return new Run(code.getAsInt(), out.toString(), err.toString(), List.copyOf(events), p);
  }
}
