package dev.pushgate.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The real git CLI with a given environment and nothing of the host's git config (after the e2e
 * tests' {@code GitRun}); every invocation is timed from process start to exit.
 */
final class Git {
  /** What a git command did, and how long it took from start to exit. */
  record Result(List<String> args, int exit, String stdout, String stderr, long nanos) {
    Result ok() {
      if (exit != 0) {
        throw new IllegalStateException("git " + String.join(" ", args) + " failed (" + exit
            + "):\n" + stderr + stdout);
      }
      return this;
    }

    double millis() {
      return nanos / 1e6;
    }

    String firstErrorLine() {
      for (String line : (stderr + "\n" + stdout).split("\\R")) {
        if (line.contains("error") || line.contains("fatal") || line.contains("rejected")) {
          return line.strip();
        }
      }
      return stderr.strip().isEmpty() ? "exit " + exit : stderr.strip().split("\\R")[0];
    }
  }

  /** Writes a command's standard input. */
  interface Input {
    void writeTo(OutputStream out) throws IOException;
  }

  private static final long TIMEOUT_SECONDS = 1800;

  private final Path home;
  private final Map<String, String> env;

  Git(Path home, Map<String, String> env) {
    this.home = home;
    this.env = Map.copyOf(env);
  }

  Git with(String key, String value) {
    Map<String, String> e = new HashMap<>(env);
    e.put(key, value);
    return new Git(home, e);
  }

  Result in(Path dir, String... args) throws IOException, InterruptedException {
    return run(dir, null, args);
  }

  Result run(Path dir, Input input, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add("git");
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
    Map<String, String> e = pb.environment();
    // Nothing of the host's git setup, and no HTTP proxy: bench traffic stays on 127.0.0.1.
    e.keySet().removeIf(k -> k.startsWith("GIT_") || k.equals("GH_TOKEN")
        || k.toLowerCase(Locale.ROOT).endsWith("_proxy"));
    e.put("HOME", home.toString());
    e.put("GIT_CONFIG_NOSYSTEM", "1");
    e.put("GIT_TERMINAL_PROMPT", "0");
    e.put("GIT_AUTHOR_NAME", "Agent");
    e.put("GIT_AUTHOR_EMAIL", "agent@example.com");
    e.put("GIT_COMMITTER_NAME", "Agent");
    e.put("GIT_COMMITTER_EMAIL", "agent@example.com");
    e.putAll(env);
    Path out = Files.createTempFile("bench-git-out", ".txt");
    Path err = Files.createTempFile("bench-git-err", ".txt");
    pb.redirectOutput(out.toFile()).redirectError(err.toFile());
    if (input == null) {
      pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    }
    long start = System.nanoTime();
    Process p = pb.start();
    try {
      if (input != null) {
        try (OutputStream stdin = p.getOutputStream()) {
          input.writeTo(stdin);
        }
      }
      if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException("git " + String.join(" ", args) + " did not finish in "
            + TIMEOUT_SECONDS + " s");
      }
      long nanos = System.nanoTime() - start;
      return new Result(List.of(args), p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8), nanos);
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  static String version() {
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
