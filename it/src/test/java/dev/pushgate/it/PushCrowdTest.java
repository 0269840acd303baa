package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.GitRun;
import dev.pushgate.testkit.RunningAppliance;
import dev.pushgate.testkit.Wait;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 35: a crowd of pushes to one repository past what the gateway admits at once. The
 * gateway's limit is set small ({@value #LIMIT}) and filled, with the reserve past it for runs
 * holding no admission (issue 35's few-runs finding), by pushes of {@link #HELD} runs held for an
 * approver; then
 * a crowd of {@value #CROWD} runs pushes at once. Every push of the crowd is answered within its
 * deadline, shed with git's own error and a message that says to retry, and so is a fetch
 * (git's {@code remote error}), each counted on {@code /metrics}; {@code /healthz} answers
 * throughout; once the held pushes are answered they land, and the crowd's next pushes land. Before
 * admission the crowd queued behind the held pushes without bound (with 350 runs at once the
 * appliance wedged).
 */
class PushCrowdTest {
  private static final int LIMIT = 3;
  private static final int CROWD = 24;
  /** Runs whose held push each takes one place: the limit's and then the reserve's. */
  private static final int HELD = new dev.pushgate.gateway.AdmissionLimits(LIMIT, 64,
      Duration.ofSeconds(20)).admitted();
  private static final String REPO = "crowd/widget";
  private static final String SHED = "remote: Control Center policy: the gateway is working on"
      + " its limit of " + LIMIT + " git requests at once; nothing was done,"
      + " retry in a few seconds";

  private static final String SHED_FETCH = "fatal: remote error: Control Center policy: the"
      + " gateway is working on its limit of " + LIMIT + " git requests at once; nothing was"
      + " done, retry in a few seconds";

  @TempDir Path tmp;

  @Test
  void aCrowdPastTheGatewaysLimitIsShedWithAMessageWhileHealthzAnswersAndPushesLandAfter()
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(CROWD + 1);
    try (RunningAppliance app = RunningAppliance.start(tmp.resolve("data"),
        "--max-git-requests", String.valueOf(LIMIT), "--approver-poll-grace", "2s")) {
      app.forgeCreate(REPO);
      Path home = Files.createDirectories(tmp.resolve("home"));
      Path template = tmp.resolve("template");
      List<Pusher> held = new ArrayList<>();
      List<Pusher> crowd = new ArrayList<>();
      for (int i = 0; i < HELD + CROWD; i++) {
        JsonNode run = app.createRun("{\"workspaceId\": \"crowd\", \"repository\": \"" + REPO
            + "\", \"rules\": {\"push\": [{\"refs\": \"refs/heads/held-*\", \"decision\": \"ask\","
            + " \"reason\": \"held for the test\"}]}}");
        GitRun git = new GitRun(home, ForgeRefs.env(run)).withTimeout(Duration.ofSeconds(90));
        Path work = tmp.resolve("w" + i);
        if (i == 0) {
          git.in(tmp, "clone", "-q", "https://github.com/" + REPO + ".git", template.toString())
              .ok();
        }
        copy(template, work);
        git.in(work, "commit", "-q", "--allow-empty", "-m", "push " + i).ok();
        (i < HELD ? held : crowd).add(new Pusher(i, git, work));
      }

      try (AllowingApprover approver = AllowingApprover.connectHolding(app)) {
        List<Process> holding = new ArrayList<>();
        for (Pusher p : held) {
          holding.add(p.startHeld());
        }
        for (Pusher p : held) {
          Wait.until(Duration.ofSeconds(60), "push " + p.n + " to be held for its approver",
              () -> Files.readString(p.err()).contains("waiting for approval"));
        }

        AtomicBoolean crowding = new AtomicBoolean(true);
        AtomicInteger healthy = new AtomicInteger();
        ConcurrentLinkedQueue<Integer> unhealthy = new ConcurrentLinkedQueue<>();
        Future<?> health = pool.submit(() -> {
          while (crowding.get()) {
            int status = app.healthz();
            if (status == 200) {
              healthy.incrementAndGet();
            } else {
              unhealthy.add(status);
            }
          }
          return null;
        });
        List<Future<GitRun.Result>> pushes = new ArrayList<>();
        for (Pusher p : crowd) {
          pushes.add(pool.submit(() -> p.push()));
        }
        List<GitRun.Result> answers = new ArrayList<>();
        for (Future<GitRun.Result> f : pushes) {
          answers.add(f.get(120, TimeUnit.SECONDS)); // each git itself is killed after 90 s
        }
        crowding.set(false);
        health.get(30, TimeUnit.SECONDS);

        assertThat(answers).as("every push of the crowd shed at once with git's error, saying"
            + " to retry").allSatisfy(r -> {
              assertThat(r.exit()).as(r.stderr()).isNotZero();
              assertThat(r.stderr()).contains(SHED).contains("error: 429");
            });
        // A fetch shed the same way is told why in git's own error channel: git printed only
        // "RPC failed; HTTP 429" for a shed POST, and a protocol v2 ref listing is one.
        Pusher fetcher = crowd.get(0);
        for (String[] read : List.of(new String[] {"fetch", "origin"},
            new String[] {"-c", "protocol.version=0", "fetch", "origin"},
            new String[] {"ls-remote", "origin"})) {
          GitRun.Result r = fetcher.git().in(fetcher.work(), read);
          assertThat(r.exit()).as(r.stderr()).isNotZero();
          assertThat(r.stderr()).as(String.join(" ", read)).contains(SHED_FETCH);
        }
        String metrics = Wire.tcp(app.port(), "GET", "/metrics", null, null, null).body();
        assertThat(metrics).containsPattern("pushgate_git_requests_shed_total\\{door=\"fetch\","
            + "limit=\"gateway\"\\} 3\\.0");
        assertThat(metrics).containsPattern("pushgate_git_requests_shed_total\\{door=\"push\","
            + "limit=\"gateway\"\\} " + CROWD + "\\.0");
        assertThat(unhealthy).as("/healthz answers while the crowd pushes").isEmpty();
        assertThat(healthy.get()).as("/healthz answers while the crowd pushes").isPositive();
        for (Pusher p : crowd) {
          assertThat(ForgeRefs.ref(app, REPO, p.branch())).as(p.branch()).isNull();
        }

        approver.allow();
        for (int i = 0; i < held.size(); i++) {
          Process p = holding.get(i);
          assertThat(p.waitFor(90, TimeUnit.SECONDS)).as("held push " + i + " answered").isTrue();
          assertThat(p.exitValue()).as(Files.readString(held.get(i).err())).isZero();
        }
      }

      // Once the held pushes are answered the gateway admits again: the crowd's retries land.
      List<Future<GitRun.Result>> retries = new ArrayList<>();
      for (Pusher p : crowd.subList(0, LIMIT)) {
        retries.add(pool.submit(() -> p.push()));
      }
      for (Future<GitRun.Result> f : retries) {
        f.get(120, TimeUnit.SECONDS).ok();
      }
      for (Pusher p : crowd.subList(0, LIMIT)) {
        assertThat(ForgeRefs.ref(app, REPO, p.branch())).as(p.branch()).isNotNull();
      }
      for (Pusher p : held) {
        assertThat(ForgeRefs.ref(app, REPO, "refs/heads/held-" + p.n)).isNotNull();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /** One run's clone and its push. */
  private record Pusher(int n, GitRun git, Path work) {
    String branch() {
      return "refs/heads/crowd-" + n;
    }

    Path err() {
      return work.resolve(".git/held-push.err");
    }

    GitRun.Result push() throws Exception {
      return git.in(work, "push", "origin", "HEAD:" + branch());
    }

    Process startHeld() throws Exception {
      return git.start(work, work.resolve(".git/held-push.out"), err(), "push", "origin",
          "HEAD:refs/heads/held-" + n);
    }
  }

  private static void copy(Path from, Path to) throws Exception {
    Process p = new ProcessBuilder("cp", "-a", from.toString(), to.toString()).inheritIO().start();
    assertThat(p.waitFor()).isZero();
  }
}
