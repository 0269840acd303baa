package dev.pushgate.bench;

import dev.pushgate.testkit.RunningAppliance;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Section 6: start-ups of the jar on a new and on an existing data directory, and the idle
 * memory after each.
 */
record StartupBench(BenchRun bench) {
  void run() throws Exception {
    int fresh = bench.o.quick() ? 3 : 5;
    int again = bench.o.quick() ? 2 : 3;
    bench.step("start-up: " + fresh + " starts on a new data directory, " + again
        + " on an existing one");
    List<List<String>> rows = new ArrayList<>();
    Path first = bench.work.resolve("startup").resolve("fresh-0").resolve("data");
    for (String kind : List.of("new data directory", "existing data directory")) {
      List<Double> ms = new ArrayList<>();
      List<Double> rss = new ArrayList<>();
      List<Double> heap = new ArrayList<>();
      int n = kind.startsWith("new") ? fresh : again;
      for (int i = 0; i < n; i++) {
        Path data = kind.startsWith("new")
            ? bench.work.resolve("startup").resolve("fresh-" + i).resolve("data") : first;
        try (RunningAppliance a = BenchRun.startAppliance(bench.jar, data,
            bench.jvmOptions(data))) {
          ms.add(a.startupNanos() / 1e6);
          Thread.sleep(2000);
          rss.add(ApplianceProbe.statusKb(a, "VmRSS") / 1024.0);
          heap.add(ApplianceProbe.heapInfoKb(a)[0] / 1024.0);
        }
      }
      rows.add(List.of(kind, String.valueOf(n), Stats.of(ms).summary(0),
          Stats.of(rss).summary(0), Stats.of(heap).summary(0)));
      if (kind.startsWith("new")) {
        bench.report.summary("6. start-up to /healthz 200, ms (new data dir)", "",
            Stats.of(ms).summary(0),
            "", "", "");
        bench.report.summary("6. idle RSS 2 s after start, MiB", "", Stats.of(rss).summary(0), "",
            "", "");
      }
    }
    bench.report.heading("6. Start-up and idle memory");
    bench.report.text("Process spawn to the first `GET /healthz` answered 200 (polled every 5 ms), then"
        + " RSS (`VmRSS`) and heap used (`jcmd PID GC.heap_info`) 2 s later, idle."
        + " A new data directory includes generating the local forge's 2048-bit App key and the"
        + " ledger key. Median [min–max].");
    bench.report.table(List.of("data directory", "starts", "start-up (ms)", "idle RSS (MiB)",
        "idle heap used (MiB)"), rows);
  }
}
