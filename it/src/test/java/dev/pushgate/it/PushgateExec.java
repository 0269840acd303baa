package dev.pushgate.it;

import static org.assertj.core.api.Assertions.fail;

import dev.pushgate.testkit.GitRun;
import dev.pushgate.testkit.RunningAppliance;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code pushgate exec} as a launcher runs it: the packaged jar on an appliance's data directory,
 * for repository acme/widget, with none of the caller's git or GitHub variables, a home of the
 * test's, and its output kept.
 */
final class PushgateExec {
  private static final Pattern RUN_ID = Pattern.compile("pushgate: run (run_[0-9a-f]+) ");
  private static final int DEADLINE_SECONDS = 180;

  /** What one {@code pushgate exec} did. */
  record Result(int exit, String stdout, String stderr) {
    String runId() {
      Matcher m = RUN_ID.matcher(stderr);
      if (!m.find()) {
        throw new AssertionError("exec named no run:\n" + stderr);
      }
      return m.group(1);
    }
  }

  /** A {@code pushgate exec} still running, and where its output goes. */
  record Started(Process process, Path out, Path err) {}

  private final Path dataDir;
  private final Path home;
  private final boolean denyLayer;

  private PushgateExec(Path dataDir, Path home, boolean denyLayer) {
    this.dataDir = dataDir;
    this.home = home;
    this.denyLayer = denyLayer;
  }

  static PushgateExec on(Path dataDir, Path home) {
    return new PushgateExec(dataDir, home, false);
  }

  /** The launcher mounts the name-deny layer, so it is given the daemon as bin/pushgate gives it. */
  PushgateExec withDenyLayer() {
    return new PushgateExec(dataDir, home, true);
  }

  Result run(Path cwd, Map<String, String> env, String... args) throws Exception {
    return finish(start(cwd, env, args));
  }

  Started start(Path cwd, Map<String, String> env, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("java"));
    if (denyLayer) {
      RunningAppliance.denyfs().ifPresent(d -> cmd.add("-Dpushgate.denyfs=" + d.toAbsolutePath()));
    }
    cmd.addAll(List.of("-jar", RunningAppliance.jar().toString(),
        "exec", "--data-dir", dataDir.toString(), "--repo", "acme/widget"));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(cwd.toFile());
    Map<String, String> e = pb.environment();
    e.keySet().removeIf(k -> k.startsWith("GIT_") || k.startsWith("GH_")
        || k.equals("GITHUB_TOKEN"));
    e.put("HOME", Files.createDirectories(home).toString());
    e.putAll(GitRun.AGENT_IDENTITY);
    e.putAll(env);
    Path out = Files.createTempFile("exec-out", ".txt");
    Path err = Files.createTempFile("exec-err", ".txt");
    pb.redirectOutput(out.toFile()).redirectError(err.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    return new Started(pb.start(), out, err);
  }

  static Result finish(Started started) throws Exception {
    Process p = started.process();
    if (!p.waitFor(DEADLINE_SECONDS, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      fail("pushgate exec did not finish in " + DEADLINE_SECONDS + " s:\n" + read(started.err()));
    }
    Result result = new Result(p.exitValue(), read(started.out()), read(started.err()));
    Files.delete(started.out());
    Files.delete(started.err());
    return result;
  }

  static String read(Path file) throws Exception {
    return Files.readString(file, StandardCharsets.UTF_8);
  }
}
