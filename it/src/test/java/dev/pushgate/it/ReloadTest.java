package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.GitRun;
import dev.pushgate.testkit.RunningAppliance;
import dev.pushgate.testkit.Wait;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGHUP ({@code systemctl reload}) reloads the configuration file without a restart: the process
 * lives on, a run created before keeps pushing, runs created after get the new default rules, and
 * an invalid file is logged and ignored.
 */
class ReloadTest {
  private static final Duration RELOAD = Duration.ofSeconds(60);

  @TempDir Path tmp;

  @Test
  void sighupAppliesANewConfigAndIgnoresAnInvalidOne() throws Exception {
    Path data = Files.createDirectories(tmp.resolve("data"));
    Path config = data.resolve("pushgate.yaml");
    Path rulesOne = rules("one");
    Path rulesTwo = rules("two");
    Files.writeString(config, "rules: " + rulesOne + "\n");
    try (RunningAppliance app = RunningAppliance.start(data)) {
      app.forgeCreate("acme/widget");
      GitRun before = git(app, "before");
      Path w = clone(before, "w-before");
      assertThat(before.in(w, "push", "origin", "main").failed().stderr()).contains("rules one");

      Files.writeString(config, "rules: " + rulesTwo + "\nrun-ttl: 9h\n");
      hangUp(app, 1);
      assertThat(app.logText()).contains("pushgate: configuration reloaded; applied:")
          .contains("changed but applied only at restart: run-ttl");
      assertThat(app.healthz()).isEqualTo(200);
      // the run created before: alive, its pushes land, its own rules unchanged
      commit(before, w, "after-reload");
      before.in(w, "push", "origin", "main:feature").ok();
      assertThat(before.in(w, "push", "origin", "main").failed().stderr()).contains("rules one");
      // a run created after: the new default rules
      GitRun after = git(app, "after");
      Path w2 = clone(after, "w-after");
      assertThat(after.in(w2, "push", "origin", "main").failed().stderr()).contains("rules two");

      Files.writeString(config, "rules: " + rulesOne + "\nbogus-key: 1\n");
      hangUp(app, 1);
      assertThat(app.logText()).contains("pushgate: reload refused, the running configuration"
          + " stays:").contains("unknown key bogus-key");
      GitRun third = git(app, "third");
      Path w3 = clone(third, "w-third");
      assertThat(third.in(w3, "push", "origin", "main").failed().stderr()).contains("rules two");
      before.in(w, "push", "origin", "main:feature2").ok();
    }
  }

  /** Sends SIGHUP and waits for its outcome's log line: the nth reload since the last call. */
  private static void hangUp(RunningAppliance app, int n) throws Exception {
    long seen = reloads(app.logText());
    Process kill = new ProcessBuilder("kill", "-HUP", String.valueOf(app.pid())).inheritIO().start();
    assertThat(kill.waitFor(30, TimeUnit.SECONDS) && kill.exitValue() == 0).isTrue();
    Wait.until(RELOAD, "the reload's log line", () -> reloads(app.logText()) >= seen + n);
  }

  private static long reloads(String log) {
    return log.lines().filter(l -> l.contains("pushgate: configuration reloaded")
        || l.contains("pushgate: reload refused")).count();
  }

  private Path rules(String name) throws Exception {
    return Files.writeString(tmp.resolve("rules-" + name + ".yaml"), """
        push:
          - refs: refs/heads/main
            decision: deny
            reason: rules %s
        """.formatted(name));
  }

  private GitRun git(RunningAppliance app, String name) throws Exception {
    JsonNode run = app.createRun("""
        {"workspaceId": "ws-%s", "repository": "acme/widget", "mode": "chat"}""".formatted(name));
    return new GitRun(Files.createDirectories(tmp.resolve("home-" + name)),
        RunningAppliance.runEnv(run));
  }

  private Path clone(GitRun git, String dir) throws Exception {
    git.in(tmp, "clone", "-q", "https://github.com/acme/widget.git", dir).ok();
    Path w = tmp.resolve(dir);
    commit(git, w, dir);
    return w;
  }

  private static void commit(GitRun git, Path w, String text) throws Exception {
    Files.writeString(w.resolve("f.txt"), text + "\n");
    git.in(w, "add", ".").ok();
    git.in(w, "commit", "-qm", text).ok();
  }
}
