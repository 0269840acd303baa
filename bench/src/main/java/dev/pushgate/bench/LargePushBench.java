package dev.pushgate.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.GitRun;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Section 2: a large initial push into a new repository, direct and through the gateway. */
record LargePushBench(BenchRun bench) {
  void run() throws Exception {
    int n = bench.o.largeRuns();
    Path src = bench.bigSource();
    bench.step(String.format(Locale.ROOT,
        "large push: 1 warm-up + %d measured pushes of %d MiB each,"
        + " direct and gateway, each into a new repository", n, bench.o.largeBytes() >> 20));
    List<String> names = new ArrayList<>();
    for (int i = 0; i <= n; i++) {
      names.add("big-d-" + i);
    }
    GitRun direct = bench.directGit(ForgeToken.mintWrite(bench.app, names));
    List<Double> d = new ArrayList<>();
    List<Double> g = new ArrayList<>();
    long cpuD = 0;
    long cpuG = 0;
    for (int i = 0; i <= n; i++) {
      JsonNode run = bench.newRun(bench.app, "acme/big-g-" + i);
      GitRun gateway = bench.runGit(run);
      boolean directFirst = i % 2 == 0;
      for (int side = 0; side < 2; side++) {
        boolean isDirect = (side == 0) == directFirst;
        long cpu0 = ApplianceProbe.cpuNanos(bench.app);
        GitRun.Result r = isDirect
            ? direct.in(src, "push", bench.app.forgeUrl("acme/big-d-" + i),
                "main:refs/heads/big").ok()
            : gateway.in(src, "push", BenchRun.GITHUB + "acme/big-g-" + i + ".git",
                "main:refs/heads/big")
                .ok();
        long cpu = ApplianceProbe.cpuNanos(bench.app) - cpu0;
        if (i == 0) {
          continue; // warm-up
        }
        if (isDirect) {
          d.add(r.millis() / 1000);
          cpuD += cpu;
        } else {
          g.add(r.millis() / 1000);
          cpuG += cpu;
        }
      }
      bench.progress.printf(Locale.ROOT, "  large %d/%d%n", i, n);
    }
    Stats sd = Stats.of(d);
    Stats sg = Stats.of(g);
    double ratio = sg.median() / sd.median();
    // Each gateway push next to the direct push made just before or after it: a machine whose
    // speed drifts during the section (other work on the host) moves both of a pair alike.
    List<Double> pairs = new ArrayList<>();
    for (int k = 0; k < n; k++) {
      pairs.add(g.get(k) / d.get(k));
    }
    Stats sp = Stats.of(pairs);
    long mib = bench.o.largeBytes() >> 20;
    bench.report.heading("2. Large initial push");
    bench.report.text(String.format(Locale.ROOT, "%d MiB of random (incompressible) bytes in 50"
        + " commits, pushed as a new branch into a new repository (one fresh forge repository"
        + " per push). The source repository is packed once by `git fast-import`, so git reuses"
        + " the packed objects and every push sends the same %d MiB pack. 1 warm-up and %d"
        + " measured pushes each, alternating.", mib, mib, n));
    bench.report.table(List.of("push", "n", "median (s)", "min (s)", "max (s)",
            "appliance CPU per push (s)", "throughput (MiB/s, median)"),
        List.of(largeRow("direct to the forge", sd, cpuD / 1e9 / n, mib),
            largeRow("through the gateway", sg, cpuG / 1e9 / n, mib)));
    bench.report.text(String.format(Locale.ROOT, "gateway / direct (medians): **%.2f×** (target ≤"
        + " 1.3×, issue 33); pair by pair (each gateway push over the direct push next to it): median"
        + " %.2f×, from %.2f× to %.2f×", ratio, sp.median(), sp.min(), sp.max()));
    bench.report.summary("2. large push " + mib + " MiB, s (n=" + n + ")", sd.summary(2),
        sg.summary(2), BenchRun.fmtRatio(ratio), "≤ 1.3×", ratio <= 1.3 ? "yes" : "**no**");
  }

  private static List<String> largeRow(String name, Stats s, double cpuS, long mib) {
    return List.of(name, String.valueOf(s.count()), Stats.fmt(s.median(), 2),
        Stats.fmt(s.min(), 2), Stats.fmt(s.max(), 2), Stats.fmt(cpuS, 2),
        Stats.fmt(mib / s.median(), 0));
  }
}
