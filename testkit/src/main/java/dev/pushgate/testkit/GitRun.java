package dev.pushgate.testkit;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs the real git CLI with a run's environment and nothing of the host's git config or proxy
 * settings; every invocation is timed from process start to exit. Immutable: the {@code with…}
 * methods return a changed copy.
 */
public final class GitRun {
  /** Who commits in a test's git: the agent, the same name and address for author and committer. */
  public static final Map<String, String> AGENT_IDENTITY = Map.of(
      "GIT_AUTHOR_NAME", "Agent", "GIT_AUTHOR_EMAIL", "agent@example.com",
      "GIT_COMMITTER_NAME", "Agent", "GIT_COMMITTER_EMAIL", "agent@example.com");

  /** What a git command did, and how long it took from start to exit. */
  public record Result(List<String> args, int exit, String stdout, String stderr, long nanos) {
    public Result ok() {
      if (exit != 0) {
        throw new AssertionError("git " + String.join(" ", args) + " failed (" + exit + "):\n"
            + stderr + stdout);
      }
      return this;
    }

    public Result failed() {
      if (exit == 0) {
        throw new AssertionError("git " + String.join(" ", args) + " should have failed:\n"
            + stderr + stdout);
      }
      return this;
    }

    public double millis() {
      return nanos / 1e6;
    }

    /** The first line that says what went wrong, for a one-line report. */
    public String firstErrorLine() {
      for (String line : (stderr + "\n" + stdout).split("\\R")) {
        if (line.contains("error") || line.contains("fatal") || line.contains("rejected")) {
          return line.strip();
        }
      }
      return stderr.strip().isEmpty() ? "exit " + exit : stderr.strip().split("\\R")[0];
    }
  }

  /** Writes a command's standard input. */
  @FunctionalInterface
  public interface Input {
    void writeTo(OutputStream out) throws IOException;
  }

  private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(120);

  private final Path home;
  private final Map<String, String> env;
  private final Duration timeout;
  private final StringBuffer transcript;

  public GitRun(Path home, Map<String, String> runEnv) {
    this(home, runEnv, DEFAULT_TIMEOUT, null);
  }

  private GitRun(Path home, Map<String, String> env, Duration timeout, StringBuffer transcript) {
    this.home = home;
    this.env = Map.copyOf(env);
    this.timeout = timeout;
    this.transcript = transcript;
  }

  public GitRun withEnv(String key, String value) {
    Map<String, String> e = new HashMap<>(env);
    e.put(key, value);
    return new GitRun(home, e, timeout, transcript);
  }

  /** The longest one command may take before it is killed and reported (default 120 s). */
  public GitRun withTimeout(Duration limit) {
    return new GitRun(home, env, limit, transcript);
  }

  /**
   * Every command and its output is appended to {@code sink} (the caller's own, for its leak
   * checks: one test's transcript never holds another's output).
   */
  public GitRun withTranscript(StringBuffer sink) {
    return new GitRun(home, env, timeout, sink);
  }

  public Result in(Path dir, String... args) throws IOException, InterruptedException {
    return run(dir, null, args);
  }

  /** Runs git in {@code dir}, its standard input written by {@code input} (none when null). */
  public Result run(Path dir, Input input, String... args)
      throws IOException, InterruptedException {
    Path out = Files.createTempFile("git-out", ".txt");
    Path err = Files.createTempFile("git-err", ".txt");
    try {
      long start = System.nanoTime();
      Process p = start(dir, out, err, input != null, args);
      if (input != null) {
        try (OutputStream stdin = p.getOutputStream()) {
          input.writeTo(stdin);
        }
      }
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        throw new AssertionError("git " + String.join(" ", args) + " did not finish in "
            + timeout.toSeconds() + " s");
      }
      long nanos = System.nanoTime() - start;
      Result r = new Result(List.of(args), p.exitValue(),
          Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8), nanos);
      if (transcript != null) {
        transcript.append("$ git ").append(String.join(" ", args)).append('\n')
            .append(r.stdout()).append(r.stderr());
      }
      return r;
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  /** Starts git without waiting, its output going to {@code out} and {@code err}. */
  public Process start(Path dir, Path out, Path err, String... args) throws IOException {
    return start(dir, out, err, false, args);
  }

  private Process start(Path dir, Path out, Path err, boolean withInput, String... args)
      throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add("git");
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
    Map<String, String> e = pb.environment();
    // Nothing of the host's git setup, and no HTTP proxy: the traffic stays on 127.0.0.1.
    e.keySet().removeIf(k -> k.startsWith("GIT_") || k.equals("GH_TOKEN")
        || k.toLowerCase(Locale.ROOT).endsWith("_proxy"));
    e.put("HOME", home.toString());
    e.put("GIT_CONFIG_NOSYSTEM", "1");
    e.put("GIT_TERMINAL_PROMPT", "0");
    e.putAll(AGENT_IDENTITY);
    e.putAll(env);
    pb.redirectOutput(out.toFile()).redirectError(err.toFile());
    if (!withInput) {
      pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    }
    return pb.start();
  }

  /** {@code git --version}, or what kept it from answering. */
  public static String version() {
    try {
      Process p = new ProcessBuilder("git", "--version").redirectErrorStream(true).start();
      String v = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      p.waitFor();
      return v;
    } catch (IOException e) {
      return "git: " + e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "git: interrupted";
    }
  }
}
