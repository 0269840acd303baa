package dev.pushgate.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.GitRun;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Section 5: pushes the rules refuse, small and large, and how soon the refusal comes. */
record DenyBench(BenchRun bench) {
  void run() throws Exception {
    int n = bench.o.quick() ? 5 : 10;
    int nBig = bench.o.quick() ? 2 : 3;
    bench.step("denied push: " + n + " small and " + nBig + " large pushes to a denied main");
    String rules = "{\"push\":[{\"refs\":\"refs/heads/main\",\"decision\":\"deny\","
        + "\"reason\":\"bench\"}]}";
    JsonNode run = bench.app.createRun(BenchRun.runJson("acme/widget", rules));
    GitRun git = bench.runGit(run);
    Worktree w = Worktree.cloneOf(git, bench.template, bench.work.resolve("deny-w"), BenchRun.GITHUB
        + "acme/widget.git", "refs/heads/main");
    w.commit();
    List<PushPhases> small = new ArrayList<>();
    List<PushPhases> big = new ArrayList<>();
    long cacheBefore;
    long cacheAfter;
    try (TimingProxy proxy = new TimingProxy(bench.app.port())) {
      String viaProxy = "http.proxy=" + proxy.url();
      for (int i = 0; i <= n; i++) {
        proxy.drain();
        GitRun.Result r = w.push("-c", viaProxy);
        checkRefused(r);
        List<TimingProxy.Exchange> ex = proxy.drainAnswered();
        if (i > 0) {
          small.add(PushPhases.of(r, ex));
        }
      }
      Path src = bench.bigSource();
      JsonNode bigRun = bench.app.createRun(BenchRun.runJson("acme/deny-big", rules));
      GitRun bigGit = bench.runGit(bigRun);
      // one push to create the cache, so that its growth below is the refused packs alone
      bigGit.in(bench.template, "push", BenchRun.GITHUB + "acme/deny-big.git",
          "main:refs/heads/seed").ok();
      cacheBefore = Platform.du(bench.app.cacheRepo("acme/deny-big"));
      for (int i = 0; i < nBig; i++) {
        proxy.drain();
        // forced: the history is unrelated to main's, and git would not even send a
        // non-fast-forward update otherwise; the rule refuses any update of main
        GitRun.Result r = bigGit.in(src, "-c", viaProxy, "push", BenchRun.GITHUB
            + "acme/deny-big.git",
            "+main:refs/heads/main");
        checkRefused(r);
        big.add(PushPhases.of(r, proxy.drainAnswered()));
      }
      cacheAfter = Platform.du(bench.app.cacheRepo("acme/deny-big"));
    }
    Stats totalSmall = Stats.of(small.stream().map(PushPhases::total).toList());
    Stats afterSmall = Stats.of(small.stream().map(PushPhases::afterPack).toList());
    Stats totalBig = Stats.of(big.stream().map(PushPhases::total).toList());
    Stats afterBig = Stats.of(big.stream().map(PushPhases::afterPack).toList());
    Stats uploadBig = Stats.of(big.stream().map(PushPhases::upload).toList());
    long mib = bench.o.largeBytes() >> 20;
    bench.report.heading("5. Denied push");
    bench.report.text("A run whose rules deny `refs/heads/main` (reason `bench`) pushes to main: one"
        + " small commit (" + n + " times after a warm-up), and the " + mib + " MiB history ("
        + nBig + " times). *git total*: until git exits with `! [remote rejected] ... (Control"
        + " Center policy: bench)`. *after pack*: from the last byte of the pack to the first"
        + " byte of the refusal, on the wire (timing relay as above).");
    bench.report.table(List.of("denied push", "n", "git total (ms)", "upload (ms)",
            "after pack (ms)"),
        List.of(List.of("small commit", String.valueOf(small.size()), totalSmall.summary(0),
                Stats.fmt(Stats.of(small.stream().map(PushPhases::upload).toList()).median(), 0),
                afterSmall.summary(0)),
            List.of(mib + " MiB", String.valueOf(big.size()), totalBig.summary(0),
                Stats.fmt(uploadBig.median(), 0), afterBig.summary(0))));
    bench.report.text(String.format(Locale.ROOT, "The refused %d MiB packs stay in the gateway's"
            + " cache: it grew by %.0f MiB over %d refused pushes.", mib,
        (cacheAfter - cacheBefore) / 1048576.0, nBig));
    double worst = Math.max(afterSmall.max(), afterBig.median());
    bench.report.summary("5. denied push: after pack → refusal, ms (small; " + mib + " MiB)", "",
        afterSmall.summary(0) + "; " + afterBig.summary(0), "", "< 100 ms",
        worst < 100 ? "yes" : "**no**");
  }

  private static void checkRefused(GitRun.Result r) {
    if (r.exit() == 0 || !r.stderr().contains("Control Center policy: bench")) {
      throw new IllegalStateException("the push to main should have been refused by the rule:\n"
          + r.stderr());
    }
  }
}
