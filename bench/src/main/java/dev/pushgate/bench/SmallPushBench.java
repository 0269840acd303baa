package dev.pushgate.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.GitRun;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Section 1 and its two follow-ups: the small push direct and through the gateway (1), again at
 * the end of the run (1b), and the first pushes after each start-up (1c).
 */
record SmallPushBench(BenchRun bench) {
  /** Section 1: the small push, warm, with and without upstream moved. */
  void measure() throws Exception {
    int n = bench.o.smallRuns();
    bench.step("small push: 3 + " + warmUpWords(bench.o.smallWarmup(), bench.o.smallWarmupMax())
        + " warm-up + " + n + " measured pushes each, direct and gateway");
    bench.small.ensure();
    bench.small.compact();
    List<Double> d = new ArrayList<>();
    List<Double> g = new ArrayList<>();
    long cpuD = 0;
    long cpuG = 0;
    long compiled0 = ApplianceProbe.jitCompilations(bench.app);
    for (int i = 0; i < n; i++) {
      List<Worktree> order = i % 2 == 0 ? List.of(bench.small.direct, bench.small.gateway)
          : List.of(bench.small.gateway, bench.small.direct);
      for (Worktree w : order) {
        w.commit();
        long cpu0 = ApplianceProbe.cpuNanos(bench.app);
        GitRun.Result r = w.push().ok();
        long cpu = ApplianceProbe.cpuNanos(bench.app) - cpu0;
        if (w == bench.small.direct) {
          d.add(r.millis());
          cpuD += cpu;
        } else {
          g.add(r.millis());
          cpuG += cpu;
        }
      }
    }
    String compiled = ApplianceProbe.jitCompilationsPer100(compiled0,
        ApplianceProbe.jitCompilations(bench.app), 2 * n);
    // the same push when upstream has moved since the last push: before each, another push
    // (direct, not timed) lands a commit on another branch of the repository. Direct and gateway
    // are both measured in this loop, alternating, so that both forge repositories take the same
    // pushes (two per round) and the same noise: against the direct push of the loop above, the
    // gateway's upstream would hold up to twice as many packs as the direct one's.
    String moverToken = ForgeToken.mintWrite(bench.app, List.of("widget", "widget-d"));
    Worktree mover = Worktree.cloneOf(bench.directGit(moverToken), bench.template,
        bench.work.resolve("small-mover"),
        bench.app.forgeUrl("acme/widget"), "refs/heads/mover");
    Worktree moverD = Worktree.cloneOf(bench.directGit(moverToken), bench.template,
        bench.work.resolve("small-mover-d"), bench.app.forgeUrl("acme/widget-d"),
            "refs/heads/mover");
    // The cache's fetch from upstream, the forge's pack writing for it and the fetch's
    // advertisement run only on this path, never in the warm-up above: its first pushes compile
    // them (docs/benchmarks.md, "The JIT's steady state"). So its first rounds are reported
    // apart (cold), then it warms up with rounds of its own kind before it is measured.
    int movedMin = bench.o.smallWarmup() / 2;
    int movedMax = bench.o.smallWarmupMax() / 2;
    bench.step("small push, upstream moved: " + MOVED_COLD + " cold + "
        + warmUpWords(movedMin, movedMax) + " warm-up + " + n + " measured rounds");
    bench.small.compact();
    MovedRounds cold = movedRounds(mover, moverD, MOVED_COLD);
    JitWarmUp movedWarmUp = JitWarmUp.run(bench, movedMin, movedMax, 50, bench.small::compact,
        i -> movedRound(mover, moverD, i, new MovedRounds()));
    bench.small.compact();
    long movedCompiled0 = ApplianceProbe.jitCompilations(bench.app);
    MovedRounds measured = movedRounds(mover, moverD, n);
    String movedCompiled = ApplianceProbe.jitCompilationsPer100(movedCompiled0,
        ApplianceProbe.jitCompilations(bench.app), 2 * n);
    List<Double> movedD = measured.direct;
    List<Double> moved = measured.gateway;
    long cpuM = measured.gatewayCpu;
    Stats sd = Stats.of(d);
    Stats sg = Stats.of(g);
    Stats smd = Stats.of(movedD);
    Stats sm = Stats.of(moved);
    double ratio = sg.median() / sd.median();
    double ratioMoved = sm.median() / smd.median();
    bench.report.heading("1. Small push");
    bench.report.text("One new commit changing one small file, pushed onto an existing branch of a"
        + " repository with 200 commits in 20 files (`acme/widget` through the gateway,"
        + " `acme/widget-d` direct: the same history). `git push` wall time from process start"
        + " to exit, " + n + " each after " + (3 + bench.small.warmUp.rounds())
        + " untimed pushes each" + settledWords(bench.small.warmUp)
        + " and a `git repack -a -d` of both forge repositories (untimed, as GitHub keeps its"
        + " repositories packed; the forge's own housekeeping is off during the bench)"
        + " (the JIT compiles both paths, as in an appliance that has been up a while), direct"
        + " and gateway alternating (the first pushes after start-up are in section 1c)."
        + " *upstream"
        + " moved*: the same pushes when, since their previous push, another push (direct,"
        + " not timed) has landed on another branch of their repository, so the gateway's cache"
        + " sync has something to fetch; direct and gateway alternate in a loop of their own, so"
        + " that both forge repositories take the same pushes; its first " + MOVED_COLD
        + " rounds are reported apart (*cold*: the cache's fetch and the forge's pack writing"
        + " for it run there for the first time), then " + movedWarmUp.rounds()
        + " untimed rounds" + settledWords(movedWarmUp) + " of"
        + " the same kind warm that path up before its " + n + " measured ones. Appliance CPU is the user+system time of the appliance"
        + " process (`/proc/PID/stat`) per push; for the direct push it is the local forge's"
        + " alone.");
    bench.report.table(List.of("push", "n", "median (ms)", "min (ms)", "max (ms)", "p90 (ms)",
            "appliance CPU per push (ms)"),
        List.of(row("direct to the forge", sd, cpuD / 1e6 / n),
            row("through the gateway", sg, cpuG / 1e6 / n),
            row("direct, upstream moved", smd, Double.NaN),
            row("through the gateway, upstream moved", sm, cpuM / 1e6 / n),
            row("direct, upstream moved, cold (first " + MOVED_COLD + ")",
                Stats.of(cold.direct), Double.NaN),
            row("through the gateway, upstream moved, cold (first " + MOVED_COLD + ")",
                Stats.of(cold.gateway), cold.gatewayCpu / 1e6 / MOVED_COLD)));
    bench.report.text(String.format(Locale.ROOT, "gateway / direct (medians): **%.2f×** (target ≤"
        + " 1.1×, issue 33), upstream moved **%.2f×** (target ≤ 1.2×, issue 33)", ratio, ratioMoved));
    bench.report.text("JIT compilations during the " + 2 * n + " measured pushes (direct and"
        + " gateway, `sun.ci.totalCompiles`): " + compiled + "; a JIT that has settled compiles"
        + " next to nothing here (docs/benchmarks.md, \"The JIT's steady state\"). During the "
        + 2 * n + " measured pushes of *upstream moved*: " + movedCompiled + ".");
    bench.report.text("As the appliance warmed up (untimed in section 1, timed all the same),"
        + " the small push; the first pushes after start-up are section 1c's:");
    bench.report.table(JitWarmUp.header(), bench.small.warmUp.rows());
    bench.report.text("And the upstream-moved kind's warm-up:");
    bench.report.table(JitWarmUp.header(), movedWarmUp.rows());
    bench.report.summary("1. small push, ms (n=" + n + ")", sd.summary(0), sg.summary(0),
        BenchRun.fmtRatio(ratio), "≤ 1.1×", ratio <= 1.1 ? "yes" : "**no**");
    bench.report.summary("1. small push, upstream moved since the last push, ms", smd.summary(0),
        sm.summary(0), BenchRun.fmtRatio(ratioMoved), "≤ 1.2×",
            ratioMoved <= 1.2 ? "yes" : "**no**");
  }

  /** The first rounds of the upstream-moved kind, reported apart: that path still cold. */
  private static final int MOVED_COLD = 20;

  /** "400" for a fixed warm-up, "400–3000" for one that goes on until the JIT settles. */
  private static String warmUpWords(int min, int max) {
    return min == max ? String.valueOf(min) : min + "–" + max;
  }

  /** What the report says of how a warm-up ended. */
  private static String settledWords(JitWarmUp w) {
    return w.settled() ? " (until the JIT compiled fewer than "
        + (int) JitWarmUp.SETTLED_PER_100_PUSHES + " methods per 100 pushes, table below)"
        : " (the JIT had not settled by then: table below)";
  }

  /** The push times of rounds of the upstream-moved kind, and the gateway's CPU (ns). */
  private static final class MovedRounds {
    final List<Double> direct = new ArrayList<>();
    final List<Double> gateway = new ArrayList<>();
    long gatewayCpu;
  }

  /**
   * {@code rounds} rounds: before each, {@code mover} and {@code moverD} land a commit on another
   * branch of each forge repository (direct, not timed), then the small push direct and through
   * the gateway, alternating their order.
   */
  private MovedRounds movedRounds(Worktree mover, Worktree moverD, int rounds) throws Exception {
    MovedRounds out = new MovedRounds();
    for (int i = 0; i < rounds; i++) {
      movedRound(mover, moverD, i, out);
    }
    return out;
  }

  /** Round {@code i} of the upstream-moved kind, added to {@code into}; its push times, ms. */
  private double[] movedRound(Worktree mover, Worktree moverD, int i, MovedRounds into)
      throws Exception {
    for (Worktree m : List.of(mover, moverD)) {
      m.commit();
      m.push().ok();
    }
    double[] ms = new double[2];
    List<Worktree> order = i % 2 == 0 ? List.of(bench.small.direct, bench.small.gateway)
        : List.of(bench.small.gateway, bench.small.direct);
    for (Worktree w : order) {
      w.commit();
      long cpu0 = ApplianceProbe.cpuNanos(bench.app);
      double pushMs = w.push().ok().millis();
      if (w == bench.small.direct) {
        into.direct.add(pushMs);
        ms[0] = pushMs;
      } else {
        into.gateway.add(pushMs);
        into.gatewayCpu += ApplianceProbe.cpuNanos(bench.app) - cpu0;
        ms[1] = pushMs;
      }
    }
    return ms;
  }

  /**
   * The first 3 pushes each after start-up, pooled over {@code --starts} start-ups: the first
   * start (timed in {@link SmallWorktrees#ensure}, on a new data directory), then restarts of the
   * same appliance on its data directory. Three pushes of one start-up scatter by ±0.3× from run
   * to run (the JIT's first compilations land at random points); pooled, the median is stable.
   */
  void afterRestarts() throws Exception {
    for (int s = 1; s < bench.o.starts(); s++) {
      bench.quiet("first pushes after start-up " + (s + 1));
      bench.app.close();
      bench.app.restart();
      BenchRun.Noise n = bench.noise("first pushes after start-up " + (s + 1));
      bench.small.firstPushes(true);
      n.end();
    }
    Stats firstD = Stats.of(bench.small.coldDirect);
    Stats firstG = Stats.of(bench.small.coldGateway);
    Stats cpuD = Stats.of(bench.small.coldCpuDirect);
    Stats cpuG = Stats.of(bench.small.coldCpuGateway);
    double ratio = firstG.median() / firstD.median();
    bench.report.heading("1c. The first pushes after start-up");
    bench.report.text(String.format(Locale.ROOT, "The small push of section 1, the first 3 each"
        + " (direct first in each round after the first start-up, then alternating) after each"
        + " of %d start-ups: the first on a new data"
        + " directory, before section 1's warm-up; then %d restart(s) of the same appliance on"
        + " its data directory, after every other section. The code is still interpreted. Pooled"
        + " medians: gateway / direct **%.2f×** (target ≤ 1.5×, issue 33).", bench.o.starts(),
            bench.o.starts() - 1,
        ratio));
    bench.report.table(List.of("push", "n", "median (ms)", "min (ms)", "max (ms)", "p90 (ms)",
            "appliance CPU per push (ms)"),
        List.of(row("direct, first pushes after start-up", firstD, cpuD.median()),
            row("through the gateway, first pushes after start-up", firstG, cpuG.median())));
    bench.report.text("Appliance CPU per first push is the median of each push's; load changes"
        + " it less than wall time. Per start-up, at the end of its first 3 rounds: the"
        + " appliance's CPU since its process began (start-up included) and its JIT compiler"
        + " threads' share of it (`C1/C2 CompilerThreadN`), ms, median [min–max]: process "
        + Stats.of(bench.small.coldProcessCpu).summary(0) + ", compiler threads "
        + Stats.of(bench.small.coldCompilerCpu).summary(0) + ".");
    threadTable(bench.small.coldThreadsDirect, bench.small.coldThreadsGateway,
        bench.small.coldCpuGateway.size());
    bench.report.summary("1c. appliance CPU per first push, direct / gateway, ms",
        cpuD.summary(0), cpuG.summary(0), BenchRun.fmtRatio(cpuG.median() / cpuD.median()), "",
        "");
    bench.report.summary("1c. appliance CPU to the end of the first 3 rounds, ms (compiler"
        + " threads: " + Stats.of(bench.small.coldCompilerCpu).summary(0) + ")", "",
        Stats.of(bench.small.coldProcessCpu).summary(0), "", "", "");
    bench.report.summary("1c. small push, the first 3 after each of " + bench.o.starts()
        + " start-ups, ms",
        firstD.summary(0), firstG.summary(0), BenchRun.fmtRatio(ratio), "≤ 1.5×",
        ratio <= 1.5 ? "yes" : "**no**");
  }

  /**
   * The small push once more at the end, after every other section has pushed into the same
   * appliance (the gateway's cache of {@code acme/widget} has taken every push to it since).
   */
  void again() throws Exception {
    int n = bench.o.again();
    bench.step("small push again after the other sections: " + n + " each");
    bench.small.compact();
    List<Double> d = new ArrayList<>();
    List<Double> g = new ArrayList<>();
    long cpuD = 0;
    long cpuG = 0;
    Map<String, Long> threadsD = new java.util.TreeMap<>();
    Map<String, Long> threadsG = new java.util.TreeMap<>();
    long compiled0 = ApplianceProbe.jitCompilations(bench.app);
    for (int i = 0; i < n; i++) {
      for (Worktree w : i % 2 == 0 ? List.of(bench.small.direct, bench.small.gateway)
          : List.of(bench.small.gateway, bench.small.direct)) {
        w.commit();
        Map<String, Long> t0 = ApplianceProbe.threadTicks(bench.app);
        long cpu0 = ApplianceProbe.cpuNanos(bench.app);
        (w == bench.small.direct ? d : g).add(w.push().ok().millis());
        ApplianceProbe.awaitIdle(bench.app);
        long cpu = ApplianceProbe.cpuNanos(bench.app) - cpu0;
        Map<String, Long> t1 = ApplianceProbe.threadTicks(bench.app);
        Map<String, Long> into = w == bench.small.direct ? threadsD : threadsG;
        t1.forEach((k, v) -> into.merge(k, v - t0.getOrDefault(k, 0L), Long::sum));
        if (w == bench.small.direct) {
          cpuD += cpu;
        } else {
          cpuG += cpu;
        }
      }
    }
    String compiled = ApplianceProbe.jitCompilationsPer100(compiled0,
        ApplianceProbe.jitCompilations(bench.app), 2 * n);
    JsonNode audit = bench.app.control().get("/v1/audit?limit=10000").body().get("decisions");
    bench.report.heading("1b. Small push again, at the end");
    bench.report.text(String.format(Locale.ROOT,
        "The small push of section 1, %d more each after all"
            + " other sections ran on the same appliance (%d audited ref updates so far). Direct"
            + " %s ms, gateway %s ms (median [min–max]), gateway / direct **%.2f×**; appliance"
            + " CPU per push, now that it is warm: direct %.0f ms, gateway %.0f ms. Packs on disk"
            + " now: the gateway's cache of `acme/widget` %d, the forge's `acme/widget` %d,"
            + " `acme/widget-d` %d.", n, audit == null ? -1 : audit.size(),
        Stats.of(d).summary(0), Stats.of(g).summary(0), Stats.of(g).median() / Stats.of(d).median(),
        cpuD / 1e6 / n, cpuG / 1e6 / n, packs(bench.app.cacheRepo("acme/widget")),
            packs(bench.app.forgeRepo("acme/widget")),
        packs(bench.app.forgeRepo("acme/widget-d"))));
    bench.report.text("JIT compilations during these " + 2 * n + " pushes: " + compiled + ".");
    threadTable(threadsD, threadsG, n);
    bench.report.summary("1b. small push at the end of the run, ms (n=" + n + ")",
        Stats.of(d).summary(0),
        Stats.of(g).summary(0), BenchRun.fmtRatio(Stats.of(g).median() / Stats.of(d).median()),
            "≤ 1.2×",
        Stats.of(g).median() / Stats.of(d).median() <= 1.2 ? "yes" : "**no**");
  }

  /**
   * Appliance CPU per push by kind of thread, direct against gateway, from clock ticks summed
   * over {@code n} pushes each.
   */
  private void threadTable(Map<String, Long> threadsD, Map<String, Long> threadsG, int n) {
    double msPerTick = 1000.0 / Platform.clockTicksPerSecond();
    List<List<String>> threadRows = new ArrayList<>();
    Set<String> kinds = new java.util.TreeSet<>(threadsG.keySet());
    kinds.addAll(threadsD.keySet());
    kinds.stream()
        .filter(k -> threadsG.getOrDefault(k, 0L) + threadsD.getOrDefault(k, 0L) > 0)
        .sorted((a, b) -> Long.compare(threadsG.getOrDefault(b, 0L), threadsG.getOrDefault(a, 0L)))
        .forEach(k -> threadRows.add(List.of("`" + k + "`",
            Stats.fmt(threadsD.getOrDefault(k, 0L) * msPerTick / n, 1),
            Stats.fmt(threadsG.getOrDefault(k, 0L) * msPerTick / n, 1))));
    bench.report.text("Appliance CPU per push by kind of thread (`/proc/PID/task/*/stat`, thread names"
        + " with numbers replaced by N, truncated by the kernel to 15 characters; clock ticks of "
        + (long) msPerTick + " ms, so small values are coarse):");
    bench.report.table(List.of("thread", "direct (ms per push)", "gateway (ms per push)"),
        threadRows);
  }

  private static long packs(Path repo) {
    try (var s = Files.list(repo.resolve("objects").resolve("pack"))) {
      return s.filter(p -> p.getFileName().toString().endsWith(".pack")).count();
    } catch (IOException e) {
      return -1;
    }
  }

  private static List<String> row(String name, Stats s, double cpuMs) {
    return List.of(name, String.valueOf(s.count()), Stats.fmt(s.median(), 0),
        Stats.fmt(s.min(), 0), Stats.fmt(s.max(), 0), Stats.fmt(s.percentile(90), 0),
        Stats.fmt(cpuMs, 0));
  }
}
