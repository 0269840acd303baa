package dev.pushgate.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.GitRun;
import dev.pushgate.testkit.RunningAppliance;
import dev.pushgate.testkit.Wait;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The gateway over a wide-area link (issue 35): the upstream, a local forge on an appliance of its
 * own, sits behind a {@link ShapedLink} (by default 40 ms round trip, 200 Mbit/s); a second
 * appliance, configured as a GitHub App whose host is that link, is the gateway. The same git
 * operations go through the gateway and straight over the same link: a small push, a large push
 * of incompressible bytes, a fetch of a small and of a large new commit. Reports the median of
 * each, their ratio, and what each crossed the link: connections, turns (round trips a connection
 * waited on) and requests, which the machine's load does not change. Nothing here is asserted but
 * the link itself: a direct {@code git ls-remote} must cost at least a round trip more than on
 * loopback.
 *
 * <p>Usage (see {@code bench/wan/run}): {@code WanBench --jar JAR [--rtt-ms 40] [--mbit 200]
 * [--runs 9] [--large-runs 3] [--large-mib 100] [--warmup 20] [--think-ms 0] [--keep]}.
 * {@code --think-ms} pauses before each measured command, as an agent thinks between two: the
 * connections the last command left open may have been closed meanwhile.
 */
public final class WanBench {
  private static final String REPO = "acme/widget";
  /**
   * The gateway appliance's own check of its GitHub App ({@code GET /app}, for {@code /readyz}),
   * made every so often whatever git does: counted with whichever command runs meanwhile, direct
   * ones too, so shown apart.
   */
  private static final String APP_CHECK = "GET v3/app";

  private final Path jar;
  private final double rttMs;
  private final double mbit;
  private final int runs;
  private final int largeRuns;
  private final long largeBytes;
  private final int warmup;
  private final long thinkMs;
  private final Path work;
  private final Map<String, Row> rows = new LinkedHashMap<>();

  private ShapedLink link;
  private String url;
  private GitRun direct;
  private GitRun gateway;

  private WanBench(Path jar, double rttMs, double mbit, int runs, int largeRuns, long largeBytes,
      int warmup, long thinkMs, Path work) {
    this.jar = jar;
    this.rttMs = rttMs;
    this.mbit = mbit;
    this.runs = runs;
    this.largeRuns = largeRuns;
    this.largeBytes = largeBytes;
    this.warmup = warmup;
    this.thinkMs = thinkMs;
    this.work = work;
  }

  public static void main(String[] args) throws Exception {
    StandaloneArgs a = StandaloneArgs.parse(args, "--jar JAR --rtt-ms MS --mbit MBIT --runs N"
        + " --large-runs N --large-mib MIB --warmup N --think-ms MS --keep", "--rtt-ms", "--mbit",
        "--runs", "--large-runs", "--large-mib", "--warmup", "--think-ms");
    double rtt = a.get("--rtt-ms", Double::parseDouble, 40.0);
    double mbit = a.get("--mbit", Double::parseDouble, 200.0);
    int runs = a.get("--runs", Integer::parseInt, 9);
    int largeRuns = a.get("--large-runs", Integer::parseInt, 3);
    long largeMib = a.get("--large-mib", Long::parseLong, 100L);
    int warmup = a.get("--warmup", Integer::parseInt, 20);
    long thinkMs = a.get("--think-ms", Long::parseLong, 0L);
    if (runs < 1 || largeRuns < 0 || warmup < 0 || thinkMs < 0) {
      throw new IllegalArgumentException("--runs must be at least 1, --large-runs, --warmup and"
          + " --think-ms at least 0");
    }
    a.inScratch("pushgate-wan-bench-", work -> new WanBench(a.jar(), rtt, mbit, runs, largeRuns,
        largeMib << 20, warmup, thinkMs, work).run());
  }

  private void run() throws Exception {
    System.out.printf(Locale.ROOT, "machine: %s, %d cores, %d MiB; git %s; load average %s%n",
        Platform.cpuModel(), Runtime.getRuntime().availableProcessors(), Platform.memTotalMb(),
        GitRun.version(), Platform.loadAverage());
    Path home = Files.createDirectories(work.resolve("home"));
    List<String> serve = List.of("--sandbox", "off", "--max-write-tokens-per-minute", "1000000");
    try (RunningAppliance forge = RunningAppliance.on(work.resolve("forge")).jar(jar)
        .log(work.resolve("forge.log")).serve(serve).withoutDenyLayer().start()) {
      forge.forgeCreate(REPO);
      GitRun plain = git(home, Map.of());
      plain.in(work, "config", "--file", forge.forgeRepo(REPO).resolve("config").toString(),
          "receive.autogc", "false").ok();
      try (ShapedLink l = new ShapedLink(forge.port(), rttMs, mbit)) {
        link = l;
        String host = "http://127.0.0.1:" + link.port() + "/forge";
        url = host + "/" + REPO + ".git";
        List<String> asGitHubApp = new ArrayList<>(serve);
        asGitHubApp.addAll(List.of("--github-app-id", "1",
            "--github-app-key", forge.dataDir.resolve("forge-app.pem").toString(),
            "--github-api-url", host + "/api/v3", "--github-host", host));
        try (RunningAppliance gw = RunningAppliance.on(work.resolve("gateway")).jar(jar)
            .log(work.resolve("gateway.log")).serve(asGitHubApp).withoutDenyLayer().start()) {
          JsonNode run = gw.createRun("{\"workspaceId\": \"wan\", \"repository\": \"" + REPO
              + "\", \"rules\": {\"push\": [{\"refs\": \"refs/heads/main\", \"decision\":"
              + " \"deny\", \"reason\": \"push to main is denied\"}]}}");
          gateway = git(home, RunningAppliance.runEnv(run));
          direct = git(home, directEnv(ForgeToken.mintWrite(forge, List.of("widget"))));
          System.out.printf(Locale.ROOT, "link: %s ms round trip, %s Mbit/s each way, on"
              + " 127.0.0.1:%d to the forge's port %d%n%n", Stats.fmt(rttMs, 1),
              Stats.fmt(mbit, 0), link.port(), forge.port());
          checkLink(forge);
          measure();
          report();
        }
      }
    }
  }

  /**
   * git straight to the forge over the link with a write token sent from the first request on,
   * as the gateway sends its own (a credential helper would add a 401 and its round trip). The
   * token travels in git's environment, never on a command line.
   */
  private static Map<String, String> directEnv(String token) {
    String basic = Base64.getEncoder().encodeToString(
        ("x-access-token:" + token).getBytes(StandardCharsets.UTF_8));
    return Map.of("GIT_CONFIG_COUNT", "1", "GIT_CONFIG_KEY_0", "http.extraHeader",
        "GIT_CONFIG_VALUE_0", "Authorization: Basic " + basic);
  }

  private static GitRun git(Path home, Map<String, String> env) {
    return new GitRun(home, env).withTimeout(Duration.ofMinutes(30));
  }

  /**
   * The link delays as set: the fastest of 20 {@code GET /healthz} over the link (one kept
   * connection) takes at least a round trip more than the fastest on loopback, whatever the
   * machine's load adds to the others; and a direct {@code git ls-remote}, its own new connection
   * each, for what a git command meets (its figures, on a busy machine, scatter).
   */
  private void checkLink(RunningAppliance forge) throws Exception {
    java.net.http.HttpClient http = java.net.http.HttpClient.newBuilder()
        .proxy(java.net.http.HttpClient.Builder.NO_PROXY).build();
    List<Double> overLink = new ArrayList<>();
    List<Double> onLoopback = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      overLink.add(healthzMillis(http, "http://127.0.0.1:" + link.port()));
      onLoopback.add(healthzMillis(http, forge.base()));
    }
    double added = Stats.of(overLink).min() - Stats.of(onLoopback).min();
    List<Double> loopback = new ArrayList<>();
    List<Double> shaped = new ArrayList<>();
    ShapedLink.Counts before = link.counts();
    for (int i = 0; i < runs; i++) {
      loopback.add(direct.in(work, "ls-remote", forge.forgeUrl(REPO)).ok().millis());
      shaped.add(direct.in(work, "ls-remote", url).ok().millis());
    }
    ShapedLink.Counts each = link.counts().minus(before);
    System.out.printf(Locale.ROOT, "link check: GET /healthz, fastest of 20: %s ms over the link,"
        + " %s ms on loopback: the link adds %s ms = %s round trips%n", Stats.fmt(
        Stats.of(overLink).min(), 1), Stats.fmt(Stats.of(onLoopback).min(), 1),
        Stats.fmt(added, 1), Stats.fmt(added / rttMs, 2));
    System.out.printf(Locale.ROOT, "direct git ls-remote, median [fastest] of %d: %s [%s] ms over"
        + " the link, %s [%s] ms on loopback (%d connection(s), %d turn(s) each)%n%n", runs,
        Stats.fmt(Stats.of(shaped).median(), 1), Stats.fmt(Stats.of(shaped).min(), 1),
        Stats.fmt(Stats.of(loopback).median(), 1), Stats.fmt(Stats.of(loopback).min(), 1),
        each.connections() / runs, each.turns() / runs);
    if (added < rttMs) {
      throw new IllegalStateException("the shaping link does not shape: a request over it costs"
          + " only " + Stats.fmt(added, 1) + " ms more than on loopback, less than one round"
          + " trip of " + Stats.fmt(rttMs, 1) + " ms");
    }
  }

  private static double healthzMillis(java.net.http.HttpClient http, String base)
      throws Exception {
    long start = System.nanoTime();
    java.net.http.HttpResponse<Void> r = http.send(java.net.http.HttpRequest.newBuilder(
        java.net.URI.create(base + "/healthz")).build(),
        java.net.http.HttpResponse.BodyHandlers.discarding());
    if (r.statusCode() != 200) {
      throw new IllegalStateException("GET " + base + "/healthz answered " + r.statusCode());
    }
    return (System.nanoTime() - start) / 1e6;
  }

  private void measure() throws Exception {
    Path d = work.resolve("direct");
    Path g = work.resolve("through-gateway");
    // once each, the gateway's cache empty: what a run's first clone meets
    timed("first clone", false, () -> direct.in(work, "clone", "-q", url, d.toString()).ok());
    timed("first clone", true, () -> gateway.in(work, "clone", "-q", url, g.toString()).ok());
    System.out.printf(Locale.ROOT, "warm-up: %d small pushes and fetches each way; load average"
        + " %s%n", warmup, Platform.loadAverage());
    for (int i = 0; i < warmup; i++) {
      smallCycle(d, g, "warm-" + i, false);
    }
    System.out.printf(Locale.ROOT, "small: %d each way; load average %s%n", runs, Platform.loadAverage());
    for (int i = 0; i < runs; i++) {
      smallCycle(d, g, "small-" + i, true);
    }
    for (int n = 0; n < largeRuns; n++) {
      final int i = n;
      System.out.printf(Locale.ROOT, "large %d of %d (%d MiB each way); load average %s%n",
          i + 1, largeRuns, largeBytes >> 20, Platform.loadAverage());
      Path srcD = work.resolve("large-d-" + i + ".git");
      Path srcG = work.resolve("large-g-" + i + ".git");
      Histories.randomBlobs(direct, srcD, largeBytes, 10, 1000 + i);
      Histories.randomBlobs(direct, srcG, largeBytes, 10, 2000 + i);
      String large = (largeBytes >> 20) + " MiB push";
      String fetch = (largeBytes >> 20) + " MiB fetch";
      timed(large, false, () -> direct.in(srcD, "push", "-q", url, "main:refs/heads/big-d-" + i)
          .ok());
      timed(fetch, true, () -> gateway.in(g, "fetch", "-q", url, "refs/heads/big-d-" + i).ok());
      timed(large, true, () -> gateway.in(srcG, "push", "-q", url, "main:refs/heads/big-g-" + i)
          .ok());
      timed(fetch, false, () -> direct.in(d, "fetch", "-q", url, "refs/heads/big-g-" + i).ok());
      Platform.deleteTree(srcD);
      Platform.deleteTree(srcG);
    }
  }

  /**
   * The direct clone pushes a commit and the gateway's clone fetches it, then the other way
   * round: both paths push the same size and fetch one commit their cache or clone lacks.
   */
  private void smallCycle(Path d, Path g, String name, boolean counted) throws Exception {
    Timed op = counted ? this::timed : (label, viaGateway, body) -> body.run();
    commit(direct, d, name + "-d");
    op.run("small push", false, () -> direct.in(d, "push", "-q", url, "HEAD:refs/heads/d").ok());
    op.run("small fetch", true, () -> gateway.in(g, "fetch", "-q", url, "refs/heads/d").ok());
    commit(gateway, g, name + "-g");
    op.run("small push", true, () -> gateway.in(g, "push", "-q", url, "HEAD:refs/heads/g").ok());
    op.run("small fetch", false, () -> direct.in(d, "fetch", "-q", url, "refs/heads/g").ok());
  }

  private static void commit(GitRun git, Path w, String name) throws Exception {
    Files.writeString(w.resolve(name.replaceAll("-[dg]$", "") + ".txt"), name + "\n");
    git.in(w, "add", "-A").ok();
    git.in(w, "commit", "-q", "-m", name).ok();
  }

  interface Body {
    void run() throws Exception;
  }

  interface Timed {
    void run(String label, boolean viaGateway, Body body) throws Exception;
  }

  /** Times one git command and counts what crossed the link during it and until it is quiet. */
  private void timed(String label, boolean viaGateway, Body body) throws Exception {
    if (thinkMs > 0) {
      // an agent's think time between two git commands: what an idle connection meets
      Thread.sleep(thinkMs);
    }
    ShapedLink.Counts before = link.counts();
    long start = System.nanoTime();
    body.run();
    double ms = (System.nanoTime() - start) / 1e6;
    ShapedLink.Counts during = link.counts().minus(before);
    ShapedLink.Counts after = quiet().minus(before).minus(during);
    Row row = rows.computeIfAbsent(label, k -> new Row());
    Side side = viaGateway ? row.gateway : row.direct;
    side.add(ms, during, after);
    side.timeline = timeline(start, ms, link.sentSince(start));
  }

  /**
   * The link's counts once nothing has crossed it for two round trips and 200 ms: what an
   * operation leaves running after git exits (a revocation, a background fetch) is counted with
   * it, not with the next one. Bounded at 30 s.
   */
  private ShapedLink.Counts quiet() throws Exception {
    long quietNanos = (long) ((2 * rttMs + 200) * 1e6);
    ShapedLink.Counts[] last = {link.counts()};
    long[] since = {System.nanoTime()};
    Wait.until(Duration.ofSeconds(30), "the link to go quiet", () -> {
      ShapedLink.Counts now = link.counts();
      if (!now.equals(last[0])) {
        last[0] = now;
        since[0] = System.nanoTime();
      }
      return System.nanoTime() - since[0] >= quietNanos;
    });
    return last[0];
  }

  /** One operation's measurements, one side. */
  private static final class Side {
    final List<Double> ms = new ArrayList<>();
    final List<ShapedLink.Counts> during = new ArrayList<>();
    final List<ShapedLink.Counts> after = new ArrayList<>();
    /** The last repetition's requests over the link, each at its offset from the start. */
    String timeline = "";

    void add(double t, ShapedLink.Counts d, ShapedLink.Counts a) {
      ms.add(t);
      during.add(d);
      after.add(a);
    }

    /** Connections and turns, fewest–most over the repetitions, and the last one's requests. */
    String counts(List<ShapedLink.Counts> which) {
      if (which.isEmpty()) {
        return "";
      }
      Stats conns = Stats.of(which.stream().map(c -> (double) c.connections()).toList());
      Stats turns = Stats.of(which.stream().map(c -> (double) c.turns()).toList());
      ShapedLink.Counts last = which.get(which.size() - 1);
      StringBuilder s = new StringBuilder(range(conns) + " conn, " + range(turns) + " turns");
      long checks = last.requests().getOrDefault(APP_CHECK, 0L);
      last.requests().forEach((k, v) -> {
        if (!k.equals(APP_CHECK)) {
          s.append("; ").append(v).append("× ").append(k);
        }
      });
      return s.append(checks == 0 ? "" : "; (" + checks + "× the gateway appliance's App check)")
          .toString();
    }

    private static String range(Stats s) {
      return s.min() == s.max() ? Stats.fmt(s.min(), 0)
          : Stats.fmt(s.min(), 0) + "–" + Stats.fmt(s.max(), 0);
    }
  }

  private static final class Row {
    final Side direct = new Side();
    final Side gateway = new Side();
  }

  /** {@code +0 GET info/refs, +41 POST git-receive-pack, ... (git exited at +95)}, in ms. */
  private static String timeline(long start, double ms, List<ShapedLink.Sent> sent) {
    StringBuilder s = new StringBuilder();
    for (ShapedLink.Sent r : sent) {
      s.append(s.length() == 0 ? "" : ", ").append('+')
          .append(Stats.fmt((r.nanos() - start) / 1e6, 0)).append(' ').append(r.kind());
    }
    return s.append(" (git exited at +").append(Stats.fmt(ms, 0)).append(')').toString();
  }

  private void report() {
    System.out.printf(Locale.ROOT, "%n### Over a %s ms, %s Mbit/s link: direct and through the"
        + " gateway (%s ms between commands; load average after: %s)%n%n", Stats.fmt(rttMs, 0),
        Stats.fmt(mbit, 0), thinkMs, Platform.loadAverage());
    System.out.println("| operation | direct, ms | through the gateway, ms | gateway / direct |"
        + " target |");
    System.out.println("|---|---:|---:|---:|---:|");
    for (Map.Entry<String, Row> e : rows.entrySet()) {
      Stats dir = Stats.of(e.getValue().direct.ms);
      Stats gw = Stats.of(e.getValue().gateway.ms);
      System.out.printf(Locale.ROOT, "| %s (%d each) | %s | %s | %s× | %s |%n", e.getKey(),
          dir.count(), dir.summary(0), gw.summary(0), Stats.fmt(gw.median() / dir.median(), 2),
          e.getKey().startsWith("small push") ? "≤ 1.1×"
              : e.getKey().startsWith("first") ? "" : "≤ 1.05×");
    }
    System.out.printf(Locale.ROOT, "%nWhat crossed the link (connections and turns, fewest–most"
        + " over the repetitions; the last one's requests); the gateway's are its own, to the"
        + " upstream:%n%n| operation | side | while git ran | after git exited |%n|---|---|---|---|%n");
    for (Map.Entry<String, Row> e : rows.entrySet()) {
      Side d = e.getValue().direct;
      Side g = e.getValue().gateway;
      System.out.printf(Locale.ROOT, "| %s | direct | %s | %s |%n", e.getKey(),
          d.counts(d.during), d.counts(d.after));
      System.out.printf(Locale.ROOT, "| %s | gateway | %s | %s |%n", e.getKey(),
          g.counts(g.during), g.counts(g.after));
    }
    System.out.printf(Locale.ROOT, "%nWhen each request left for the link, in ms from the start of"
        + " the last repetition:%n%n| operation | side | requests |%n|---|---|---|%n");
    for (Map.Entry<String, Row> e : rows.entrySet()) {
      System.out.printf(Locale.ROOT, "| %s | direct | %s |%n| %s | gateway | %s |%n", e.getKey(),
          e.getValue().direct.timeline, e.getKey(), e.getValue().gateway.timeline);
    }
  }
}
