package dev.pushgate.bench;

import dev.pushgate.testkit.GitRun;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Section 4: the appliance's memory during large pushes. */
record MemoryBench(BenchRun bench) {
  void run() throws Exception {
    Path data = bench.app.dataDir;
    Path gcLog = BenchRun.gcLog(data);
    bench.step("memory: peak RSS and heap during large pushes");
    Platform.run(List.of("jcmd", String.valueOf(bench.app.pid()), "GC.run"));
    Thread.sleep(1000);
    long[] idleHeap = ApplianceProbe.heapInfoKb(bench.app);
    long idleRss = ApplianceProbe.statusKb(bench.app, "VmRSS");
    record Case(String label, Path src, String repo, boolean gateway, long mib) {}
    List<Case> cases = new ArrayList<>();
    long mib = bench.o.largeBytes() >> 20;
    Path src = bench.bigSource();
    cases.add(new Case(mib + " MiB, direct", src, "acme/mem-d", false, mib));
    cases.add(new Case(mib + " MiB, gateway", src, "acme/mem-g", true, mib));
    String skipped = null;
    if (bench.o.quick()) {
      skipped = "The 1 GiB push is skipped with --quick.";
    } else if (Platform.freeDiskMb(bench.work) < 8 * 1024) {
      skipped = "The 1 GiB push is skipped: less than 8 GiB free in " + bench.work + " ("
          + Platform.freeDiskMb(bench.work) + " MiB); it needs the source, two forge copies and the"
          + " gateway's cache.";
    } else {
      // 500 commits of 2 MiB: the same blob size as the 100 MiB push, ten times the pack, so
      // that only the pack's size differs
      bench.step("memory: generating 1 GiB of random blobs in 500 commits");
      Path big = bench.work.resolve("big1g-src.git");
      Histories.randomBlobs(bench.git(Map.of()), big, 1024L * 1024 * 1024, 500, 9);
      cases.add(new Case("1024 MiB, direct", big, "acme/mem1g-d", false, 1024));
      cases.add(new Case("1024 MiB, gateway", big, "acme/mem1g-g", true, 1024));
    }
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("idle, after the sections above and a full GC", "", "",
        Stats.fmt(idleRss / 1024.0, 0), Stats.fmt(idleHeap[0] / 1024.0, 0),
        Stats.fmt(idleHeap[1] / 1024.0, 0), "", "", Stats.fmt(idleHeap[0] / 1024.0, 0)));
    Map<String, MemoryWatch.Peak> peaks = new LinkedHashMap<>();
    Map<String, Double> retainedMb = new LinkedHashMap<>();
    boolean rssReset = true;
    for (Case c : cases) {
      bench.step("memory: " + c.label());
      GitRun git = c.gateway() ? bench.runGit(bench.newRun(bench.app, c.repo()))
          : bench.directGit(ForgeToken.mintWrite(bench.app, List.of(c.repo().substring(5))));
      String url = c.gateway() ? BenchRun.GITHUB + c.repo() + ".git" : bench.app.forgeUrl(c.repo());
      Platform.run(List.of("jcmd", String.valueOf(bench.app.pid()), "GC.run"));
      Thread.sleep(500);
      MemoryWatch.Peak p;
      GitRun.Result r;
      try (MemoryWatch w = MemoryWatch.start(bench.app, gcLog)) {
        r = git.in(c.src(), "push", url, "main:refs/heads/big").ok();
        p = w.stop();
      }
      rssReset &= p.rssReset();
      peaks.put(c.label(), p);
      Platform.run(List.of("jcmd", String.valueOf(bench.app.pid()), "GC.run"));
      double retained = ApplianceProbe.heapInfoKb(bench.app)[0] / 1024.0;
      retainedMb.put(c.label(), retained);
      rows.add(List.of(c.label(), Stats.fmt(r.millis() / 1000, 1), Stats.fmt(c.mib() / (r.millis()
              / 1000), 0), Stats.fmt(p.rssMb(), 0), Stats.fmt(p.heapUsedMb(), 0),
          Stats.fmt(p.heapCommittedMb(), 0),
          p.gcs() == 0 ? "no GC" : Stats.fmt(p.liveAfterGcMb(), 0),
          String.valueOf(p.gcs()), Stats.fmt(retained, 0)));
    }
    bench.report.heading("4. Memory during large pushes");
    bench.report.text("Before each push a full GC (`jcmd PID GC.run`) and a reset of the peak RSS"
        + " (`echo 5 > /proc/PID/clear_refs`); during it `jstat -gc PID 100` samples the heap."
        + " *peak RSS* is `VmHWM` after the push; *peak heap used* the largest jstat sample"
        + " (eden + survivors + old); *heap after GC* the largest occupancy left after a"
        + " collection during the push (`-Xlog:gc`; young collections leave promoted garbage and"
        + " 2 MiB blobs are humongous objects in a 512 MiB G1 heap, so this over-states what is"
        + " live); *after the push + full GC* what the push left behind. The appliance runs with "
        + String.join(" ", bench.o.applianceJvm()) + "; the direct push's numbers are the local"
        + " forge's own (same process). The 1 GiB history is 500 commits of 2 MiB blobs, the"
        + " blob size of the " + (bench.o.largeBytes() >> 20) + " MiB one, so only the pack's size"
        + " differs."
        + (rssReset ? "" : " (The kernel refused `clear_refs`; peak RSS is the largest"
        + " sampled VmRSS.)"));
    bench.report.table(List.of("push", "time (s)", "MiB/s", "peak RSS (MiB)",
        "peak heap used (MiB)",
        "heap committed (MiB)", "heap after GC, max (MiB)", "GCs",
        "heap after the push + full GC (MiB)"), rows);
    if (skipped != null) {
      bench.report.text(skipped);
    }
    MemoryWatch.Peak gSmall = peaks.get(mib + " MiB, gateway");
    MemoryWatch.Peak gBig = peaks.get("1024 MiB, gateway");
    bench.report.summary("4. peak RSS / heap after GC during the " + mib + " MiB push, MiB",
        fmtPeak(peaks.get(mib + " MiB, direct")), fmtPeak(gSmall), "", "", "");
    if (gBig != null) {
      MemoryWatch.Peak dBig = peaks.get("1024 MiB, direct");
      // What the push keeps alive (the most left after a GC) with 10x the pack: within 1.5x
      // (or 32 MiB) of the smaller push's; when that one saw no GC, its peak use bounds it.
      // The peak heap used counts garbage not yet collected, so it follows how far G1 lets
      // eden grow during a longer push, for the direct push too.
      double small = gSmall.gcs() == 0 ? gSmall.heapUsedMb() : gSmall.liveAfterGcMb();
      boolean flat = gBig.liveAfterGcMb() <= Math.max(small * 1.5, small + 32);
      bench.report.summary("4. peak RSS / heap after GC during the 1 GiB push, MiB", fmtPeak(dBig),
          fmtPeak(gBig), "", "heap growth independent of pack size", flat ? "yes" : "**no**");
      bench.report.summary("4. peak heap used (garbage included), " + mib
          + " MiB → 1 GiB push, MiB",
          Stats.fmt(peaks.get(mib + " MiB, direct").heapUsedMb(), 0) + " → "
              + Stats.fmt(dBig.heapUsedMb(), 0),
          Stats.fmt(gSmall.heapUsedMb(), 0) + " → " + Stats.fmt(gBig.heapUsedMb(), 0), "", "",
          "");
    } else {
      bench.report.summary("4. 1 GiB push", "", "skipped", "",
          "heap growth independent of pack size",
          "not measured");
    }
  }

  private static String fmtPeak(MemoryWatch.Peak p) {
    return p == null ? "" : Stats.fmt(p.rssMb(), 0) + " / "
        + (p.gcs() == 0 ? "no GC" : Stats.fmt(p.liveAfterGcMb(), 0));
  }
}
