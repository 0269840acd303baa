package dev.pushgate.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.GitRun;
import dev.pushgate.testkit.RunningAppliance;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Many runs at once (issue 35): a crowd of runs each pushing one small commit to one repository
 * at the same moment (a mix of allowed, refused and asked pushes, an approver answering) while
 * each also calls the GitHub API through its boundary; then a flood of allowed pushes, and how
 * soon a push lands after it. Reports, per scenario, what became of every push and in what time,
 * whether {@code /healthz} answered throughout, the appliance's peak RSS and threads, and whether
 * the audit holds one record per judged push with its chain intact. Nothing here is asserted;
 * the table says which targets held.
 *
 * <p>Usage (see {@code bench/crowd/run}): {@code CrowdBench --jar JAR [--crowd N] [--flood N]
 * [--keep]} (defaults 500 and 1000).
 */
public final class CrowdBench {
  private static final String REPO = "crowd/widget";
  private static final String REFUSED = "(Control Center policy: push to main is denied)";
  private static final String SHED = "retry in a few seconds";
  private static final double ANSWER_WITHIN_S = 60;

  private CrowdBench() {}

  public static void main(String[] args) throws Exception {
    StandaloneArgs a = StandaloneArgs.parse(args, "--jar JAR --crowd N --flood N --keep",
        "--crowd", "--flood");
    int crowd = a.get("--crowd", Integer::parseInt, 500);
    int flood = a.get("--flood", Integer::parseInt, 1000);
    System.out.printf(Locale.ROOT, "machine: %s, %d cores, %d MiB, %s; load average before %s%n",
        Platform.cpuModel(), Runtime.getRuntime().availableProcessors(), Platform.memTotalMb(),
        Platform.javaVersion(), Platform.loadAverage());
    a.inScratch("pushgate-crowd-bench-", work -> {
      if (crowd > 0) {
        scenario(a.jar(), work.resolve("crowd"), crowd, true);
      }
      if (flood > 0) {
        scenario(a.jar(), work.resolve("flood"), flood, false);
      }
    });
  }

  /** What a push is meant to meet. */
  enum Kind {
    ALLOWED, REFUSED, ASKED
  }

  /** One run: its clone, its push, and its API call. */
  record Run(int n, Kind kind, GitRun git, Path work, RunApiCall api) {
    String target() {
      return switch (kind) {
        case ALLOWED -> "HEAD:refs/heads/run-" + n;
        case REFUSED -> "HEAD:main";
        case ASKED -> "HEAD:refs/heads/ask-" + n;
      };
    }
  }

  /** What became of one push. */
  record Outcome(Run run, String what, double seconds, String detail) {}

  private static void scenario(Path jar, Path dir, int runs, boolean mixed) throws Exception {
    String name = mixed ? "crowd" : "flood";
    Files.createDirectories(dir);
    try (RunningAppliance app = RunningAppliance.on(dir.resolve("data")).jar(jar)
        .log(dir.resolve("appliance.log"))
        .jvm(List.of("-Xmx512m", "-Xlog:gc:file=" + dir.resolve("gc.log")))
        .serve(List.of("--sandbox", "off")).withoutDenyLayer().start()) {
      app.forgeCreate(REPO);
      List<Run> crowd = prepare(app, dir, runs, mixed);
      System.out.printf(Locale.ROOT, "%s: %d runs ready, load average %s%n", name, runs,
          Platform.loadAverage());
      ExecutorService pool = Executors.newFixedThreadPool(2 * runs);
      List<Outcome> outcomes = new ArrayList<>();
      List<Integer> apiStatuses = new ArrayList<>();
      long floodEnded;
      double recovery = Double.NaN;
      Thread approver = mixed ? approver(app) : null;
      try (HealthWatch health = HealthWatch.start(app)) {
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Outcome>> pushes = new ArrayList<>();
        List<Future<Integer>> calls = new ArrayList<>();
        for (Run r : crowd) {
          pushes.add(pool.submit(() -> {
            go.await();
            return push(r);
          }));
          if (mixed) {
            calls.add(pool.submit(() -> {
              go.await();
              return r.api().get("/repos/" + REPO, 60_000);
            }));
          }
        }
        long start = System.nanoTime();
        go.countDown();
        for (Future<Outcome> f : pushes) {
          outcomes.add(f.get(10, TimeUnit.MINUTES));
        }
        for (Future<Integer> f : calls) {
          apiStatuses.add(f.get(10, TimeUnit.MINUTES));
        }
        floodEnded = System.nanoTime();
        recovery = mixed ? Double.NaN : recovery(crowd, floodEnded);
        report(name, outcomes, apiStatuses, health, (floodEnded - start) / 1e9, recovery);
        System.out.println("| longest GC pause of the appliance | "
            + Stats.fmt(longestPauseMs(dir.resolve("gc.log")), 1) + " ms |");
      } finally {
        pool.shutdownNow();
        if (approver != null) {
          approver.interrupt();
        }
      }
      audit(app, jar, outcomes, Double.isNaN(recovery) ? 0 : 1);
    }
  }

  /** Runs with their clones (copies of one), each with one new commit to push. */
  private static List<Run> prepare(RunningAppliance app, Path dir, int runs, boolean mixed)
      throws Exception {
    Path home = Files.createDirectories(dir.resolve("home"));
    Path template = dir.resolve("template");
    List<Run> out = new ArrayList<>();
    for (int i = 0; i < runs; i++) {
      JsonNode run = app.createRun("{\"workspaceId\": \"crowd\", \"repository\": \"" + REPO
          + "\", \"rules\": {\"push\": [{\"refs\": \"refs/heads/main\", \"decision\": \"deny\","
          + " \"reason\": \"push to main is denied\"}, {\"refs\": \"refs/heads/ask-*\","
          + " \"decision\": \"ask\", \"reason\": \"asked in the bench\"}]}}");
      Map<String, String> env = new LinkedHashMap<>();
      run.get("env").fields().forEachRemaining(e -> env.put(e.getKey(), e.getValue().asText()));
      GitRun git = new GitRun(home, Map.of("GIT_CONFIG_GLOBAL", env.get("GIT_CONFIG_GLOBAL"),
          "GH_TOKEN", env.get("GH_TOKEN"))).withTimeout(Duration.ofMinutes(5));
      Path w = dir.resolve("w" + i);
      if (i == 0) {
        git.in(dir, "clone", "-q", "https://github.com/" + REPO + ".git", template.toString())
            .ok();
      }
      Process cp = new ProcessBuilder("cp", "-a", template.toString(), w.toString())
          .inheritIO().start();
      if (cp.waitFor() != 0) {
        throw new IllegalStateException("cp -a failed");
      }
      git.in(w, "-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-q",
          "--allow-empty", "-m", "run " + i).ok();
      Kind kind = !mixed ? Kind.ALLOWED : Kind.values()[i % 3];
      out.add(new Run(i, kind, git, w, mixed ? RunApiCall.of(env) : null));
    }
    return out;
  }

  private static Outcome push(Run r) throws Exception {
    long start = System.nanoTime();
    GitRun.Result res = r.git().in(r.work(), "push", "origin", r.target());
    double s = (System.nanoTime() - start) / 1e9;
    String err = res.stderr();
    String what;
    if (res.exit() == 0) {
      what = "landed";
    } else if (err.contains(SHED) && err.contains("[remote rejected]")) {
      what = "shed (per ref)";
    } else if (err.contains(SHED)) {
      what = "shed (429)";
    } else if (err.contains(REFUSED)) {
      what = "refused";
    } else if (err.contains("[remote rejected]") && err.contains("(Control Center policy: ")) {
      what = "refused: " + err.substring(err.indexOf("(Control Center policy: ") + 24)
          .lines().findFirst().orElse("").replaceAll("\\)$", "");
    } else {
      what = "failed";
    }
    return new Outcome(r, what, s, err.strip().lines().reduce((a, b) -> b).orElse(""));
  }

  /** Seconds from the flood's end until one more push lands, tried one run at a time. */
  private static double recovery(List<Run> crowd, long ended) throws Exception {
    for (Run r : crowd) {
      r.git().in(r.work(), "commit", "-q", "--allow-empty", "-m", "after").ok();
      GitRun.Result res = r.git().in(r.work(), "push", "origin", r.target() + "-after");
      if (res.exit() == 0) {
        return (System.nanoTime() - ended) / 1e9;
      }
    }
    return Double.NaN;
  }

  /**
   * Long-polls the questions and allows each, as approvers at the approvals page would: the answers
   * go out on 4 threads of their own, so that the long poll goes on (an approver who stops
   * polling for the poll grace no longer counts as connected, and asks are then denied).
   */
  private static Thread approver(RunningAppliance app) throws Exception {
    ExecutorService answers = Executors.newFixedThreadPool(4);
    java.util.Set<String> answered = java.util.concurrent.ConcurrentHashMap.newKeySet();
    Thread t = new Thread(() -> {
      try {
        while (!Thread.currentThread().isInterrupted()) {
          JsonNode pending = app.control().get("/v1/approvals?wait=2").body().get("questions");
          for (JsonNode q : pending) {
            String id = q.get("id").asText();
            if (answered.add(id)) {
              answers.execute(() -> {
                try {
                  app.control().post("/v1/approvals/" + id,
                      "{\"decision\": \"allow\", \"by\": \"bench\"}");
                } catch (Exception e) {
                  answered.remove(id); // asked again at the next poll
                }
              });
            }
          }
        }
      } catch (Exception e) {
        // the scenario ended
      } finally {
        answers.shutdownNow();
      }
    }, "bench-approver");
    t.setDaemon(true);
    t.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!app.control().get("/v1/approvals").body().get("approverConnected").asBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the approver was not counted within 30 s");
      }
      Thread.sleep(100); // polled with a deadline: the appliance counts it on its next poll
    }
    return t;
  }

  private static void report(String name, List<Outcome> outcomes, List<Integer> api,
      HealthWatch health, double wallS, double recoveryS) {
    Map<String, Integer> byWhat = new LinkedHashMap<>();
    for (Outcome o : outcomes) {
      byWhat.merge(o.run().kind() + " " + o.what(), 1, Integer::sum);
    }
    List<Double> landed = outcomes.stream().filter(o -> o.what().equals("landed"))
        .map(Outcome::seconds).toList();
    Stats land = Stats.of(landed);
    Stats all = Stats.of(outcomes.stream().map(Outcome::seconds).toList());
    long late = outcomes.stream().filter(o -> o.seconds() > ANSWER_WITHIN_S).count();
    long failed = outcomes.stream().filter(o -> o.what().equals("failed")).count();
    Map<Integer, Integer> apiByStatus = new java.util.TreeMap<>();
    api.forEach(s -> apiByStatus.merge(s, 1, Integer::sum));
    Stats h = health.answered();
    System.out.printf(Locale.ROOT, "%n### %s: %d runs at once (%.1f s until the last answer)%n%n",
        name, outcomes.size(), wallS);
    System.out.println("| push | count |");
    System.out.println("|---|---:|");
    byWhat.forEach((k, v) -> System.out.println("| " + k + " | " + v + " |"));
    System.out.printf(Locale.ROOT, "%n| measure | value |%n|---|---|%n");
    System.out.printf(Locale.ROOT, "| every push answered within %.0f s | %s (slowest %.1f s, %d"
        + " later, %d failed without a message) |%n", ANSWER_WITHIN_S,
        late == 0 && failed == 0 ? "yes" : "NO", all.max(), late, failed);
    System.out.printf(Locale.ROOT, "| landed: p50 / p99 (s) | %s / %s (p99 = %s × p50) |%n",
        Stats.fmt(land.median(), 2), Stats.fmt(land.percentile(99), 2),
        Stats.fmt(land.percentile(99) / land.median(), 2));
    if (!api.isEmpty()) {
      System.out.println("| API calls (GET /repos/" + REPO + ") by status | " + apiByStatus
          + " |");
    }
    System.out.printf(Locale.ROOT, "| /healthz | %d answered (p50 %s ms, max %s ms), %d not"
        + " within 5 s |%n", h.count(), Stats.fmt(h.median(), 1), Stats.fmt(h.max(), 1),
        health.unanswered());
    System.out.printf(Locale.ROOT, "| appliance peak RSS / threads | %d MiB / %d |%n",
        health.maxRssMb(), health.maxThreads());
    if (!Double.isNaN(recoveryS) || name.equals("flood")) {
      System.out.printf(Locale.ROOT, "| a push lands after the flood ends | after %s s |%n",
          Stats.fmt(recoveryS, 2));
    }
    outcomes.stream().filter(o -> o.what().equals("failed")).limit(5).forEach(o ->
        System.out.println("failed: run " + o.run().n() + " (" + o.run().kind() + "): "
            + o.detail()));
  }

  /**
   * One audit record per judged push (landed, refused, or shed after its command list); none
   * for a push shed at its advertisement, which nothing judged; and the chain verified.
   */
  private static void audit(RunningAppliance app, Path jar, List<Outcome> outcomes,
      long landedAfter) throws Exception {
    long expected = outcomes.stream().filter(o -> o.what().equals("landed")
        || o.what().equals("refused") || o.what().equals("shed (per ref)")).count();
    JsonNode decisions = app.control().get("/v1/audit?repository=" + REPO + "&limit=10000")
        .body().get("decisions");
    long recorded = 0;
    for (JsonNode d : decisions) {
      if (d.hasNonNull("ref") && d.get("ref").asText().startsWith("refs/heads/")) {
        recorded++;
      }
    }
    String verify = RunningAppliance.cli(jar, "audit", "verify", "--data-dir",
        app.dataDir.toString()).strip();
    System.out.printf(Locale.ROOT, "| audit: push records / judged pushes | %d / %d (%s) |%n",
        recorded, expected + landedAfter, verify.lines().reduce((a, b) -> b).orElse(""));
  }

  /** The longest pause in a {@code -Xlog:gc} file, in ms (NaN when there is none). */
  private static double longestPauseMs(Path gcLog) {
    double max = Double.NaN;
    try {
      java.util.regex.Pattern pause =
          java.util.regex.Pattern.compile("Pause.* (\\d+\\.\\d+)ms$");
      for (String line : Files.readAllLines(gcLog)) {
        java.util.regex.Matcher m = pause.matcher(line);
        if (m.find()) {
          double ms = Double.parseDouble(m.group(1));
          max = Double.isNaN(max) ? ms : Math.max(max, ms);
        }
      }
    } catch (java.io.IOException e) {
      return Double.NaN;
    }
    return max;
  }
}
