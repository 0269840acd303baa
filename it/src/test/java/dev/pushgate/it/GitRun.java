package dev.pushgate.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs the real git CLI with a run's environment and nothing of the host's git config. */
final class GitRun {
  /** What a git command did. */
  record Result(int exit, String stdout, String stderr) {
    Result ok() {
      if (exit != 0) {
        throw new AssertionError("git failed (" + exit + "):\n" + stderr + stdout);
      }
      return this;
    }

    Result failed() {
      if (exit == 0) {
        throw new AssertionError("git should have failed:\n" + stderr + stdout);
      }
      return this;
    }
  }

  /** Every output of every git run, for the leak checks. */
  static final StringBuffer TRANSCRIPT = new StringBuffer();

  private final Path home;
  private final Map<String, String> env;

  GitRun(Path home, Map<String, String> runEnv) {
    this.home = home;
    this.env = new HashMap<>(runEnv);
  }

  GitRun withEnv(String key, String value) {
    GitRun g = new GitRun(home, env);
    g.env.put(key, value);
    return g;
  }

  Result in(Path dir, String... args) throws IOException, InterruptedException {
    Path out = Files.createTempFile("git-out", ".txt");
    Path err = Files.createTempFile("git-err", ".txt");
    Process p = start(dir, out, err, args);
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("git " + String.join(" ", args) + " did not finish in 120 s");
    }
    Result r = new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
    Files.delete(out);
    Files.delete(err);
    TRANSCRIPT.append("$ git ").append(String.join(" ", args)).append('\n')
        .append(r.stdout()).append(r.stderr());
    return r;
  }

  /** Starts git without waiting, its output going to {@code out} and {@code err}. */
  Process start(Path dir, Path out, Path err, String... args) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add("git");
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
    Map<String, String> e = pb.environment();
    e.keySet().removeIf(k -> k.startsWith("GIT_") || k.equals("GH_TOKEN"));
    e.put("HOME", home.toString());
    e.put("GIT_CONFIG_NOSYSTEM", "1");
    e.put("GIT_TERMINAL_PROMPT", "0");
    e.put("GIT_AUTHOR_NAME", "Agent");
    e.put("GIT_AUTHOR_EMAIL", "agent@example.com");
    e.put("GIT_COMMITTER_NAME", "Agent");
    e.put("GIT_COMMITTER_EMAIL", "agent@example.com");
    e.putAll(env);
    pb.redirectOutput(out.toFile()).redirectError(err.toFile());
    return pb.start();
  }
}
