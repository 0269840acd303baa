package dev.pushgate.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.GitRun;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The small push's two worktrees (direct and through the gateway) and its run, made once and
 * pushed by sections 1, 1b and 1c and the phases; the first pushes after start-up, timed apart.
 */
final class SmallWorktrees {
  final List<Double> coldDirect = new ArrayList<>();
  final List<Double> coldGateway = new ArrayList<>();
  /** Appliance CPU (ms) of each of the first pushes after start-up, direct and gateway. */
  final List<Double> coldCpuDirect = new ArrayList<>();
  final List<Double> coldCpuGateway = new ArrayList<>();
  /**
   * Per start-up, at the end of its first 3 rounds: the appliance's CPU since its process began
   * (start-up included, ms), and its JIT compiler threads' share of it (ms). Load stretches wall
   * time far more than it changes these.
   */
  final List<Double> coldProcessCpu = new ArrayList<>();
  final List<Double> coldCompilerCpu = new ArrayList<>();
  /** Clock ticks by kind of thread over all the first pushes, direct and gateway. */
  final Map<String, Long> coldThreadsDirect = new java.util.TreeMap<>();
  final Map<String, Long> coldThreadsGateway = new java.util.TreeMap<>();
  private final BenchRun bench;
  Worktree direct;
  Worktree gateway;
  JsonNode run;
  /** The untimed rounds before section 1, made once. */
  JitWarmUp warmUp;

  SmallWorktrees(BenchRun bench) {
    this.bench = bench;
  }

  /** Clones both worktrees and warms both paths up, the first time only. */
  void ensure() throws Exception {
    if (direct != null) {
      return;
    }
    String token = ForgeToken.mintWrite(bench.app, List.of("widget-d"));
    run = bench.newRun(bench.app, "acme/widget");
    direct = Worktree.cloneOf(bench.directGit(token), bench.template, bench.work.resolve("small-d"),
        bench.app.forgeUrl("acme/widget-d"), "refs/heads/small-direct");
    gateway = Worktree.cloneOf(bench.runGit(run), bench.template, bench.work.resolve("small-g"),
        BenchRun.GITHUB + "acme/widget.git", "refs/heads/small-gw");
    // The first pushes after start-up are timed apart: they run interpreted code. Then untimed
    // pushes until the JIT has compiled both paths, as in an appliance that has been up a while.
    firstPushes(false);
    warmUp = JitWarmUp.run(bench, bench.o.smallWarmup(), bench.o.smallWarmupMax(), 100,
        this::compact, i -> {
          double[] ms = new double[2];
          for (Worktree w : List.of(direct, gateway)) {
            w.commit();
            ms[w == direct ? 0 : 1] = w.push().ok().millis();
          }
          return ms;
        });
  }

  /**
   * The first 3 pushes each of a start-up, timed, with the appliance's CPU per push and, at
   * their end, its CPU since the process began and its JIT compilers' share of it. The order
   * alternates within the rounds when {@code alternate}, else direct goes first in every round.
   */
  void firstPushes(boolean alternate) throws Exception {
    for (int i = 0; i < 3; i++) {
      for (Worktree w : !alternate || i % 2 == 0 ? List.of(direct, gateway)
          : List.of(gateway, direct)) {
        w.commit();
        Map<String, Long> t0 = ApplianceProbe.threadTicks(bench.app);
        long cpu0 = ApplianceProbe.cpuNanos(bench.app);
        double ms = w.push().ok().millis();
        double cpuMs = (ApplianceProbe.cpuNanos(bench.app) - cpu0) / 1e6;
        Map<String, Long> into = w == direct ? coldThreadsDirect : coldThreadsGateway;
        ApplianceProbe.threadTicks(bench.app)
            .forEach((k, v) -> into.merge(k, v - t0.getOrDefault(k, 0L), Long::sum));
        (w == direct ? coldDirect : coldGateway).add(ms);
        (w == direct ? coldCpuDirect : coldCpuGateway).add(cpuMs);
      }
    }
    coldProcessCpu.add(ApplianceProbe.cpuNanos(bench.app) / 1e6);
    long compilerTicks = ApplianceProbe.threadTicks(bench.app).entrySet().stream()
        .filter(e -> e.getKey().contains("CompilerThre")).mapToLong(Map.Entry::getValue).sum();
    coldCompilerCpu.add(compilerTicks * 1000.0 / Platform.clockTicksPerSecond());
  }

  /**
   * Repacks the small push's two forge repositories, untimed, between measurements. The forge's
   * own housekeeping is off (see {@link BenchRun#createForgeRepositories}), so without this
   * every push would leave one more pack behind, and each warm-up push would make the upstream
   * stand-in slower for the rest of the run: with 150 packs, each object lookup searches 150
   * indexes, which the gateway's sync pays more than a direct push does. GitHub keeps its
   * repositories packed in the background.
   */
  void compact() throws Exception {
    GitRun git = bench.git(Map.of());
    for (String repo : List.of("acme/widget", "acme/widget-d")) {
      git.in(bench.work, "-C", bench.app.forgeRepo(repo).toString(), "repack", "-a", "-d",
          "-q").ok();
    }
  }
}
