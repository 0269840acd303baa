package dev.pushgate.bench;

import dev.pushgate.testkit.GitRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** Section 3: runs pushing at once, to one repository and to a repository each. */
record ConcurrencyBench(BenchRun bench) {
  private static int[] levels(Options o) {
    return o.quick() ? new int[] {1, 4, 16} : new int[] {1, 4, 16, 64};
  }

  /** The most runs at once, the number of repositories the section needs. */
  static int maxLevel(Options o) {
    int[] l = levels(o);
    return l[l.length - 1];
  }

  private static int rounds(Options o, int level) {
    if (o.quick()) {
      return level == 1 ? 5 : level == 4 ? 3 : 2;
    }
    return level == 1 ? 10 : level == 4 ? 5 : level == 16 ? 3 : 2;
  }

  void run() throws Exception {
    int max = maxLevel(bench.o);
    bench.step("concurrency: " + max + " runs, workers and repositories");
    List<String> names = new ArrayList<>();
    for (int i = 0; i < max; i++) {
      names.add("r-" + i);
    }
    GitRun direct = bench.directGit(ForgeToken.mintWrite(bench.app, names));
    for (int i = 0; i < max; i++) {
      // the same 200 commits in every repository, under a branch of its own
      direct.in(bench.template, "push", "-q", bench.app.forgeUrl("acme/r-" + i),
          "main:refs/heads/base")
          .ok();
    }
    List<Worktree> sameRepo = new ArrayList<>();
    List<Worktree> ownRepo = new ArrayList<>();
    Path dir = Files.createDirectories(bench.work.resolve("workers"));
    for (int i = 0; i < max; i++) {
      GitRun same = bench.runGit(bench.newRun(bench.app, "acme/widget"));
      GitRun own = bench.runGit(bench.newRun(bench.app, "acme/r-" + i));
      Worktree w = Worktree.cloneOf(same, bench.template, dir.resolve("w-" + i),
          BenchRun.GITHUB + "acme/widget.git", "refs/heads/conc-" + i);
      sameRepo.add(w);
      ownRepo.add(w.as(own, BenchRun.GITHUB + "acme/r-" + i + ".git", "refs/heads/conc-" + i));
    }
    List<List<String>> rows = new ArrayList<>();
    ExecutorService pool = Executors.newCachedThreadPool();
    try {
      for (String mode : List.of("same repository", "a repository each")) {
        List<Worktree> workers = mode.startsWith("same") ? sameRepo : ownRepo;
        bench.step("concurrency (" + mode + "): warm-up round of " + max);
        PushRound.of(pool, workers.subList(0, max)); // creates the branches and the caches
        for (int level : levels(bench.o)) {
          List<Double> latencies = new ArrayList<>();
          double wall = 0;
          int errors = 0;
          Set<String> kinds = new LinkedHashSet<>();
          for (int r = 0; r < rounds(bench.o, level); r++) {
            PushRound rr = PushRound.of(pool, workers.subList(0, level));
            wall += rr.wallMs();
            for (GitRun.Result res : rr.results()) {
              latencies.add(res.millis());
              if (res.exit() != 0) {
                errors++;
                kinds.add(res.firstErrorLine());
              }
            }
          }
          Stats s = Stats.of(latencies);
          double throughput = s.count() / (wall / 1000);
          double tail = s.percentile(99) / s.median();
          bench.step(String.format(Locale.ROOT, "  %s, %d at once: %d pushes, p50 %.0f ms, p99 %.0f"
              + " ms, %d errors", mode, level, s.count(), s.median(), s.percentile(99), errors));
          rows.add(List.of(mode, String.valueOf(level), String.valueOf(s.count()),
              Stats.fmt(throughput, 1), Stats.fmt(s.median(), 0),
              Stats.fmt(s.percentile(95), 0), Stats.fmt(s.percentile(99), 0),
              Stats.fmt(s.max(), 0), Stats.fmt(tail, 2),
              errors + (kinds.isEmpty() ? "" : " (" + String.join("; ", kinds) + ")")));
          if (level == max) {
            boolean met = errors == 0 && tail <= 3;
            bench.report.summary("3. " + level + " concurrent runs, " + mode
                    + ": pushes/s; p50 / p95 / p99 ms; errors", "",
                String.format(Locale.ROOT, "%.1f/s; %.0f / %.0f / %.0f; %d errors", throughput,
                    s.median(), s.percentile(95), s.percentile(99), errors),
                "", "0 errors, p99 ≤ 3× p50", met ? "yes" : "**no**");
          }
        }
      }
    } finally {
      pool.shutdownNow();
    }
    bench.report.heading("3. Concurrent runs");
    bench.report.text("N runs (distinct runs, each with its own branch) push one small commit each at"
        + " the same moment; a round ends when the last push has finished, the next round's"
        + " commits are made before it starts (not timed). Latency is each `git push`'s wall"
        + " time; throughput is pushes divided by the rounds' wall time. *same repository*: all"
        + " runs push to `acme/widget`; *a repository each*: run i pushes to `acme/r-i` (same"
        + " 200-commit history). One untimed warm-up round at the highest level first. Rounds"
        + " per level: " + roundsText() + ".");
    bench.report.table(List.of("repositories", "runs at once", "pushes", "pushes/s", "p50 (ms)",
        "p95 (ms)", "p99 (ms)", "max (ms)", "p99 / p50", "errors"), rows);
  }

  private String roundsText() {
    StringBuilder s = new StringBuilder();
    for (int l : levels(bench.o)) {
      s.append(s.length() == 0 ? "" : ", ").append(l).append(" → ").append(rounds(bench.o, l));
    }
    return s.toString();
  }
}
