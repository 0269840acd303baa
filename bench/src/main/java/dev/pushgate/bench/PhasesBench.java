package dev.pushgate.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.GitRun;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The phases of a push on the wire, through a timing relay, small and large. */
record PhasesBench(BenchRun bench) {
  private static final Pattern SYNC_LINE =
      Pattern.compile("synced cache of (\\S+) in (\\d+) ms");

  void run() throws Exception {
    int n = bench.o.quick() ? 5 : 8;
    bench.step("phases: " + n + " small pushes each through a timing proxy, and one large each");
    bench.small.ensure();
    bench.small.compact();
    Map<String, List<PushPhases>> byKind = new LinkedHashMap<>();
    String logBefore = bench.app.logText();
    GatewayMetrics m0 = GatewayMetrics.scrape(bench.app);
    GatewayMetrics m1;
    try (TimingProxy proxy = new TimingProxy(bench.app.port())) {
      String viaProxy = "http.proxy=" + proxy.url();
      for (int i = 0; i < n; i++) {
        for (Worktree w : List.of(bench.small.direct, bench.small.gateway)) {
          w.commit();
          proxy.drain();
          GitRun.Result r = w.push("-c", viaProxy).ok();
          byKind.computeIfAbsent(w == bench.small.direct ? "small, direct" : "small, gateway",
              k -> new ArrayList<>()).add(PushPhases.of(r, proxy.drainAnswered()));
        }
      }
      m1 = GatewayMetrics.scrape(bench.app);
      Path src = bench.bigSource();
      String token = ForgeToken.mintWrite(bench.app, List.of("ph-d-1"));
      proxy.drain();
      GitRun.Result rd = bench.directGit(token).in(src, "-c", viaProxy, "push",
          bench.app.forgeUrl("acme/ph-d-1"), "main:refs/heads/big").ok();
      byKind.put("large, direct", List.of(PushPhases.of(rd, proxy.drainAnswered())));
      JsonNode run = bench.newRun(bench.app, "acme/ph-g-1");
      GitRun.Result rg = bench.runGit(run).in(src, "-c", viaProxy, "push", BenchRun.GITHUB
          + "acme/ph-g-1.git",
          "main:refs/heads/big").ok();
      byKind.put("large, gateway", List.of(PushPhases.of(rg, proxy.drainAnswered())));
    }
    GatewayMetrics m2 = GatewayMetrics.scrape(bench.app);
    List<Double> smallSyncs = new ArrayList<>();
    List<Double> largeSyncs = new ArrayList<>();
    Matcher m = SYNC_LINE.matcher(bench.app.logText().substring(logBefore.length()));
    while (m.find()) {
      (m.group(1).equals("acme/widget") ? smallSyncs : largeSyncs)
          .add(Double.parseDouble(m.group(2)));
    }
    List<Double> hooks = new ArrayList<>();
    JsonNode audit = bench.app.control().get("/v1/audit?runId="
        + bench.small.run.get("runId").asText())
        .body().get("decisions");
    for (int i = Math.max(0, audit.size() - n); i < audit.size(); i++) {
      hooks.add(audit.get(i).get("durationMillis").asDouble());
    }
    List<List<String>> rows = new ArrayList<>();
    byKind.forEach((kind, list) -> rows.add(List.of(kind, String.valueOf(list.size()),
        PushPhases.median(list, PushPhases::total), PushPhases.median(list, PushPhases::authRetry),
            PushPhases.median(list, PushPhases::refs),
        PushPhases.median(list, PushPhases::upload), PushPhases.median(list, PushPhases::afterPack),
        PushPhases.median(list,
            p -> p.total() - p.authRetry() - p.refs() - p.upload() - p.afterPack()))));
    bench.report.heading("Phases of a push, on the wire");
    bench.report.text("The same pushes with git's `http.proxy` pointed at a timing relay on"
        + " 127.0.0.1, which timestamps each request and response. *auth retry*: the"
        + " unauthenticated first request and its 401 (git sends credentials only when asked;"
        + " the gateway's header is sent up front). *refs*: `GET info/refs` until the first"
        + " byte of the answer (the gateway syncs its cache from upstream first). *upload*: the"
        + " `POST git-receive-pack` body (git's pack-objects streams into it). *after pack*: last"
        + " byte of the pack to first byte of the answer (receive, index, check, rules, and for"
        + " the gateway the forward upstream). *client + rest*: everything else (process start,"
        + " ref negotiation in git, response transfer, exit). Medians, ms.");
    bench.report.table(List.of("push", "n", "git total", "auth retry", "refs", "upload",
        "after pack",
        "client + rest"), rows);
    String syncSmall;
    String syncLarge;
    String forward;
    if (m2.present()) {
      double[] ss = m1.meanMillisSince(m0, "pushgate_cache_sync");
      double[] sl = m2.meanMillisSince(m1, "pushgate_cache_sync");
      double[] fs = m1.meanMillisSince(m0, "pushgate_forward");
      double[] fl = m2.meanMillisSince(m1, "pushgate_forward");
      syncSmall = String.format(Locale.ROOT, "mean %.0f ms (n=%.0f)", ss[0], ss[1]);
      syncLarge = String.format(Locale.ROOT, "%.0f ms", sl[0]);
      forward = String.format(Locale.ROOT, " Forward upstream, write-token mint included"
          + " (`pushgate_forward_seconds`): small mean %.0f ms (n=%.0f), large %.0f ms.", fs[0],
          fs[1], fl[0]);
    } else {
      syncSmall = "median " + Stats.fmt(Stats.of(smallSyncs).median(), 0) + " ms (n="
          + smallSyncs.size() + ")";
      syncLarge = Stats.fmt(Stats.of(largeSyncs).median(), 0) + " ms";
      forward = "";
    }
    bench.report.text(String.format(Locale.ROOT, "Inside the gateway (its `/metrics` timers and the"
            + " audit log): cache sync before the advertisement (`pushgate_cache_sync_seconds`):"
            + " small %s, large %s.%s Pre-receive hook (judge, audit, mint, forward, settle;"
            + " the audit's `durationMillis`): small median %s ms [%s–%s].",
        syncSmall, syncLarge, forward, Stats.fmt(Stats.of(hooks).median(), 0),
        Stats.fmt(Stats.of(hooks).min(), 0), Stats.fmt(Stats.of(hooks).max(), 0)));
  }
}
