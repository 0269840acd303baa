package dev.pushgate.testkit;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A one-shot command of the jar under test, as a person types it: {@code pushgate ARGS}, its
 * output and error read together, nothing on its standard input, and none of this process's
 * {@code PUSHGATE_} variables in its environment, so that only what a test gives reaches it.
 * Its JVM is tuned to start quickly: a command is short.
 *
 * <pre>{@code
 * Cli.Result r = Cli.of("config", "check", "--data-dir", dir).env(Map.of("PUSHGATE_X", "1")).run();
 * String out = Cli.of("audit", "--data-dir", dir).ok();
 * }</pre>
 */
public final class Cli {
  /**
   * JVM options for a short-lived process of the jar (a command, a watch in a test): the first
   * compiler only and the serial collector, so that it starts and runs on little CPU.
   */
  public static final List<String> QUICK_START_JVM =
      List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

  /** A bound on a hung command, far above a command on a loaded machine. */
  private static final long DEADLINE_SECONDS = 120;

  /** How it ended: its exit code and what it printed. */
  public record Result(int exit, String out) {}

  private final Path jar;
  private final List<String> args;
  private Map<String, String> env = Map.of();
  private Path cwd;

  private Cli(Path jar, List<String> args) {
    this.jar = jar;
    this.args = List.copyOf(args);
  }

  /** {@code pushgate args} of the jar under test ({@link RunningAppliance#jar()}). */
  public static Cli of(String... args) {
    return new Cli(RunningAppliance.jar(), List.of(args));
  }

  /** {@code pushgate args} of {@code jar}. */
  public static Cli of(Path jar, String... args) {
    return new Cli(jar, List.of(args));
  }

  /** Variables set in the command's environment. */
  public Cli env(Map<String, String> variables) {
    this.env = Map.copyOf(variables);
    return this;
  }

  /** The command's working directory (default: this process's). */
  public Cli in(Path dir) {
    this.cwd = dir;
    return this;
  }

  /** Runs it and returns how it ended, whatever its exit; fails if it outlasts 120 s. */
  public Result run() throws Exception {
    List<String> cmd = new ArrayList<>(List.of("java"));
    cmd.addAll(QUICK_START_JVM);
    cmd.addAll(List.of("-jar", jar.toString()));
    cmd.addAll(args);
    // Output to a file, not a pipe read to its end: reading first would wait for a hung
    // command (a serve that does not refuse) forever, and the deadline would never be reached.
    Path log = Files.createTempFile("pushgate-cli", ".txt");
    try {
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
          .redirectOutput(log.toFile()).redirectInput(ProcessBuilder.Redirect.from(
              new File("/dev/null")));
      if (cwd != null) {
        pb.directory(cwd.toFile());
      }
      pb.environment().keySet().removeIf(k -> k.startsWith("PUSHGATE_"));
      pb.environment().putAll(env);
      Process p = pb.start();
      boolean ended = p.waitFor(DEADLINE_SECONDS, TimeUnit.SECONDS);
      if (!ended) {
        p.destroyForcibly().waitFor();
      }
      String out = Files.readString(log, StandardCharsets.UTF_8);
      if (!ended) {
        throw new AssertionError(this + " did not end within " + DEADLINE_SECONDS + " s:\n" + out);
      }
      return new Result(p.exitValue(), out);
    } finally {
      Files.deleteIfExists(log);
    }
  }

  /** Runs it and returns its output; fails on a non-zero exit. */
  public String ok() throws Exception {
    Result r = run();
    if (r.exit() != 0) {
      throw new AssertionError(this + " failed:\n" + r.out());
    }
    return r.out();
  }

  @Override
  public String toString() {
    return "pushgate " + String.join(" ", args);
  }
}
