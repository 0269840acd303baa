package dev.pushgate.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.GitRun;
import dev.pushgate.testkit.RunningAppliance;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A second appliance under Java Flight Recorder, with the small, large and concurrent pushes in
 * windows of their own, its samples read into the report.
 */
record ProfileBench(BenchRun bench) {
  void run() throws Exception {
    Path data = bench.work.resolve("profile-data");
    Path recording = bench.o.out().resolve("pushgate.jfr");
    Files.deleteIfExists(recording);
    List<String> jvm = new ArrayList<>(bench.jvmOptions(data));
    jvm.add("-XX:FlightRecorderOptions=stackdepth=256"); // Jetty + JGit stacks run deep
    jvm.add("-XX:StartFlightRecording=filename=" + recording
        + ",settings=" + JfrProfile.settings(bench.work) + ",dumponexit=true");
    bench.step("profile: a second appliance with " + jvm.get(jvm.size() - 1));
    // as many pushes as section 1 measures, after as many warm-up pushes (at least 15 and 20)
    int smallN = Math.max(bench.o.quick() ? 15 : 40, bench.o.smallRuns());
    int warmup = Math.max(20, bench.o.smallWarmup());
    List<JfrProfile.Window> windows = new ArrayList<>();
    // Its own appliance, history and small worktrees: the run's shared ones stay as they are.
    try (RunningAppliance p = BenchRun.startAppliance(bench.jar, data, jvm)) {
      Path workSaved = bench.work.resolve("profile-work");
      Files.createDirectories(workSaved);
      List<String> repos = new ArrayList<>(List.of("acme/widget"));
      for (int i = 0; i < 3; i++) {
        repos.add("acme/pr-d-" + i);
        repos.add("acme/pr-g-" + i);
      }
      bench.createForgeRepositories(p, repos);
      String token = ForgeToken.mintWrite(p, List.of("widget"));
      GitRun d = bench.directGit(token);
      Path template = workSaved.resolve("template");
      d.in(workSaved, "clone", "-q", p.forgeUrl("acme/widget"), "template").ok();
      Histories.smallCommits(d, template, d.in(template, "rev-parse", "HEAD").ok().stdout()
          .strip(), 199);
      d.in(template, "push", "-q", p.forgeUrl("acme/widget"), "main:refs/heads/main",
          "main:refs/heads/small-direct", "main:refs/heads/small-gw").ok();
      JsonNode smallRun = bench.newRun(p, "acme/widget");
      Worktree smallDirect = Worktree.cloneOf(d, template, workSaved.resolve("small-d"),
          p.forgeUrl("acme/widget"), "refs/heads/small-direct");
      Worktree smallGateway = Worktree.cloneOf(bench.runGit(smallRun), template,
          workSaved.resolve("small-g"), BenchRun.GITHUB + "acme/widget.git", "refs/heads/small-gw");
      for (int i = 0; i < warmup; i++) { // warm-up: JIT
        for (Worktree w : List.of(smallDirect, smallGateway)) {
          w.commit();
          w.push().ok();
        }
      }
      // packed, as section 1 packs it before it measures: unpacked, the warm-up's pushes left
      // the forge a pack each, and its index reads were half the window's samples
      bench.git(java.util.Map.of()).in(bench.work, "-C", p.forgeRepo("acme/widget").toString(),
          "repack", "-a", "-d", "-q").ok();
      windows.add(window("small pushes through the gateway", smallGateway, smallN));
      windows.add(window("small pushes direct to the forge", smallDirect, smallN / 2));
      Path src = bench.bigSource();
      GitRun bigDirect = bench.directGit(ForgeToken.mintWrite(p, List.of("pr-d-0", "pr-d-1",
          "pr-d-2")));
      bigDirect.in(src, "push", p.forgeUrl("acme/pr-d-0"), "main:refs/heads/big").ok();
      bench.runGit(bench.newRun(p, "acme/pr-g-0")).in(src, "push", BenchRun.GITHUB
          + "acme/pr-g-0.git",
          "main:refs/heads/big").ok();
      List<GitRun> gits = List.of(bench.runGit(bench.newRun(p, "acme/pr-g-1")),
          bench.runGit(bench.newRun(p, "acme/pr-g-2")));
      Thread.sleep(1000);
      Instant start = Instant.now();
      for (int i = 1; i <= 2; i++) {
        gits.get(i - 1).in(src, "push", BenchRun.GITHUB + "acme/pr-g-" + i + ".git",
            "main:refs/heads/big")
            .ok();
      }
      windows.add(new JfrProfile.Window(String.format(Locale.ROOT,
          "large pushes (%d MiB) through the gateway", bench.o.largeBytes() >> 20), start,
          Instant.now(), 2));
      Thread.sleep(1000);
      start = Instant.now();
      for (int i = 1; i <= 2; i++) {
        bigDirect.in(src, "push", p.forgeUrl("acme/pr-d-" + i), "main:refs/heads/big").ok();
      }
      windows.add(new JfrProfile.Window(String.format(Locale.ROOT,
          "large pushes (%d MiB) direct to the forge", bench.o.largeBytes() >> 20), start,
          Instant.now(), 2));
      // many runs at once on one repository
      int level = bench.o.quick() ? 8 : 16;
      List<Worktree> workers = new ArrayList<>();
      Path dir = Files.createDirectories(workSaved.resolve("workers"));
      for (int i = 0; i < level; i++) {
        workers.add(Worktree.cloneOf(bench.runGit(bench.newRun(p, "acme/widget")), template,
            dir.resolve("w-" + i), BenchRun.GITHUB + "acme/widget.git", "refs/heads/conc-" + i));
      }
      ExecutorService pool = Executors.newCachedThreadPool();
      try {
        PushRound.of(pool, workers); // warm-up: creates the branches
        Thread.sleep(1000);
        List<Double> ms = new ArrayList<>();
        start = Instant.now();
        for (int r = 0; r < 2; r++) {
          PushRound.of(pool, workers).results().forEach(x -> ms.add(x.millis()));
        }
        windows.add(new JfrProfile.Window(String.format(Locale.ROOT, "%d runs pushing at once to"
            + " one repository through the gateway, 2 rounds (p50 %.0f ms)", level,
            Stats.of(ms).median()), start, Instant.now(), 2 * level));
      } finally {
        pool.shutdownNow();
      }
      Thread.sleep(500);
    } finally {
      BenchRun.copyQuietly(data.resolveSibling(data.getFileName() + ".log"),
          bench.o.out().resolve("appliance-profile.log"));
    }
    bench.step("profile: reading " + recording);
    bench.report.heading("Profile (JFR)");
    bench.report.text("A second appliance started with `-XX:StartFlightRecording=...`, with the JDK's"
        + " `profile` settings and lower thresholds for socket reads, locks and fsync"
        + " (recording: `" + recording + "`; `jfr summary` and `jfr print --events"
        + " jdk.ExecutionSample` read it). Samples are aggregated per workload window; each"
        + " sample is put in the first component found on its stack, in the order of the"
        + " component list, so the local forge (the upstream, in the same process) is kept"
        + " apart from the gateway's own work.");
    bench.report.text(JfrProfile.analyze(recording, windows));
  }

  private JfrProfile.Window window(String name, Worktree w, int n) throws Exception {
    List<Double> ms = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      w.commit();
    }
    // commit once per push, outside the window: make n commits now, push one at a time
    List<String> ids = new ArrayList<>(List.of(w.git.in(w.dir, "rev-list", "--reverse", "-n",
        String.valueOf(n), "HEAD").ok().stdout().strip().split("\\R")));
    Thread.sleep(1000);
    Instant start = Instant.now();
    for (String id : ids) {
      ms.add(w.git.in(w.dir, "push", w.url, id + ":" + w.ref).ok().millis());
    }
    Instant end = Instant.now();
    bench.step(String.format(Locale.ROOT, "profile: %s: median %.0f ms", name,
        Stats.of(ms).median()));
    return new JfrProfile.Window(String.format(Locale.ROOT, "%s (median %.0f ms each)", name,
        Stats.of(ms).median()), start, end, n);
  }
}
