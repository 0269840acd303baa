package dev.pushgate.demo;

import static dev.pushgate.demo.Story.expect;

import dev.pushgate.gitconfig.OwnGit;
import dev.pushgate.types.Redaction;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The real git client with a run's environment and nothing of the host's git config. */
final class DemoGit {
  private static final String GIT_OUTPUT = "      ";

  record Result(int exit, String output) {
    Result orFail() throws Story.Failed {
      expect(exit == 0, "git failed (exit " + exit + "): " + output.strip());
      return this;
    }
  }

  private final Path home;
  private final Map<String, String> env;
  private final PrintStream out;

  /** {@code out} null runs git without showing it. */
  DemoGit(Path home, Map<String, String> env, PrintStream out) {
    this.home = home;
    this.env = env;
    this.out = out;
  }

  Result run(Path dir, String... args) throws Exception {
    List<String> cmd = OwnGit.argv(args);
    if (out != null) {
      List<String> shown = new ArrayList<>(List.of("git"));
      shown.addAll(List.of(args));
      out.println("    $ " + Redaction.redact(String.join(" ",
          shown.stream().map(DemoGit::quoted).toList())));
    }
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
    Map<String, String> e = pb.environment();
    e.keySet().removeIf(k -> k.startsWith("GIT_") || k.equals("GH_TOKEN")
        || k.startsWith("PUSHGATE_"));
    e.put("HOME", home.toString());
    e.put("XDG_CONFIG_HOME", home.resolve(".config").toString());
    e.put(OwnGit.NO_SYSTEM_CONFIG, "1");
    e.put("GIT_TERMINAL_PROMPT", "0");
    e.put("LC_ALL", "C");
    e.put("GIT_AUTHOR_NAME", "Agent");
    e.put("GIT_AUTHOR_EMAIL", "agent@example.com");
    e.put("GIT_COMMITTER_NAME", "Agent");
    e.put("GIT_COMMITTER_EMAIL", "agent@example.com");
    e.putAll(env);
    Path output = Files.createTempFile("pushgate-demo-git", ".txt");
    try {
      pb.redirectErrorStream(true).redirectOutput(output.toFile())
          .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
      Process p;
      try {
        p = pb.start();
      } catch (IOException notFound) {
        throw new Story.Failed("cannot run git (" + notFound.getMessage()
            + "); install git and put it on the PATH");
      }
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new Story.Failed("git " + String.join(" ", args) + " did not finish in 60 s");
      }
      Result r = new Result(p.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
      if (out != null && !r.output().isBlank()) {
        for (String line : Redaction.redact(r.output().stripTrailing()).split("\n")) {
          out.println((GIT_OUTPUT + line).stripTrailing());
        }
      }
      return r;
    } finally {
      Files.deleteIfExists(output);
    }
  }

  /** An argument as a shell would need it to be typed. */
  static String quoted(String arg) {
    return arg.isEmpty() || arg.matches(".*[\\s'\"$`\\\\|&;()<>*?].*")
        ? "'" + arg.replace("'", "'\\''") + "'" : arg;
  }
}
