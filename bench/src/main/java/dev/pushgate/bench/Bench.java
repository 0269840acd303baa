package dev.pushgate.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.GitRun;
import dev.pushgate.testkit.RunningAppliance;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The benchmark of issue 8: the appliance jar as a process, the real git CLI, pushes through the
 * gateway against the same pushes straight to the local forge. See {@code docs/benchmarks.md}.
 */
public final class Bench {
  private static final String GITHUB = "https://github.com/";
  private static final Pattern SYNC_LINE =
      Pattern.compile("synced cache of (\\S+) in (\\d+) ms");

  private final Options o;
  private final Path work;
  private final Report report;
  private final PrintStream progress = System.err;
  private final Path home;
  private final Path directConfig;

  private final List<String> noisy = new ArrayList<>();
  private final List<List<String>> noise = new ArrayList<>();
  private RunningAppliance app;
  private Path jar;
  private Path template;
  private Path bigSource;
  private Worktree smallDirect;
  private final List<Double> coldDirect = new ArrayList<>();
  private final List<Double> coldGateway = new ArrayList<>();
  private Worktree smallGateway;
  private JsonNode smallRun;

  private Bench(Options o, Path work) throws IOException {
    this.o = o;
    this.work = work;
    this.report = new Report(System.out);
    this.home = Files.createDirectories(work.resolve("home"));
    try {
      this.directConfig = ForgeToken.directGitConfig(work);
    } catch (Exception e) {
      throw new IOException(e);
    }
  }

  public static void main(String[] args) {
    Options o;
    try {
      o = Options.parse(args);
    } catch (Options.HelpRequested h) {
      System.out.print(Options.USAGE);
      return;
    } catch (IllegalArgumentException e) {
      System.err.println("bench: " + e.getMessage());
      System.err.print(Options.USAGE);
      System.exit(2);
      return;
    }
    if (!Files.isRegularFile(o.jar())) {
      System.err.println("bench: " + o.jar() + " is missing; build the appliance first"
          + " (mvn -B -q -DskipTests package -pl appliance -am), or use bench/run");
      System.exit(2);
    }
    try (java.util.zip.ZipFile z = new java.util.zip.ZipFile(o.jar().toFile())) {
      if (z.getEntry("dev/pushgate/appliance/cli/Main.class") == null) {
        throw new IOException("no dev.pushgate.appliance.cli.Main in it");
      }
    } catch (IOException e) {
      System.err.println("bench: " + o.jar() + " is not a complete appliance jar (is a build"
          + " writing it right now?): " + e.getMessage());
      System.exit(2);
    }
    Path work = null;
    int exit = 0;
    try {
      work = o.work() != null ? Files.createDirectories(o.work())
          : Files.createTempDirectory("pushgate-bench");
      new Bench(o, work).run();
    } catch (Exception e) {
      System.err.println("bench: failed: " + e);
      e.printStackTrace();
      exit = 1;
    } finally {
      if (work != null && !o.keep()) {
        Platform.deleteTree(work);
      } else if (work != null) {
        System.err.println("bench: scratch directory kept at " + work);
      }
    }
    if (exit != 0) {
      System.exit(exit);
    }
  }

  private void run() throws Exception {
    long started = System.nanoTime();
    Files.createDirectories(o.out());
    String head = header();
    // a snapshot: other builds may replace the jar while the benchmark runs
    jar = Files.copy(o.jar(), work.resolve("pushgate.jar"));
    System.out.print(head);
    if (o.runs("startup")) {
      quiet("startup");
      Noise n = new Noise("startup");
      startup();
      n.end();
    }
    Set<String> main = new LinkedHashSet<>(o.only());
    main.remove("startup");
    main.remove("profile");
    if (!main.isEmpty()) {
      Path data = work.resolve("data");
      app = startAppliance(jar, data, jvmOptions(data));
      try {
        setUp(app);
        if (o.runs("small")) {
          quiet("small");
          Noise n = new Noise("small");
          small();
          n.end();
        }
        if (o.runs("phases")) {
          quiet("phases");
          Noise n = new Noise("phases");
          phases();
          n.end();
        }
        if (o.runs("large")) {
          quiet("large");
          Noise n = new Noise("large");
          large();
          n.end();
        }
        if (o.runs("memory")) {
          quiet("memory");
          Noise n = new Noise("memory");
          memory();
          n.end();
        }
        if (o.runs("deny")) {
          quiet("deny");
          Noise n = new Noise("deny");
          deny();
          n.end();
        }
        if (o.runs("concurrency")) {
          quiet("concurrency");
          Noise n = new Noise("concurrency");
          concurrency();
          n.end();
        }
        if (o.runs("small")) {
          quiet("small, again");
          Noise n = new Noise("small, again");
          smallAgain();
          n.end();
        }
        if (o.runs("small")) {
          firstPushesAfterRestarts();
        }
      } finally {
        app.close();
        copyQuietly(app.log, o.out().resolve("appliance.log"));
      }
    }
    if (o.runs("profile")) {
      quiet("profile");
      Noise n = new Noise("profile");
      profile();
      n.end();
    }
    report.heading("Other work on the machine");
    report.text("CPU used by processes other than the bench, its git commands and the appliance"
        + " while each section ran (machine busy time from `/proc/stat`, minus the bench JVM and"
        + " its waited-for children, minus the appliance), as a share of all "
        + Runtime.getRuntime().availableProcessors() + " cores. Sections with a high share ran"
        + " next to other builds or tests and are noisier.");
    report.table(List.of("section", "seconds", "other processes"), noise);
    if (!noisy.isEmpty()) {
      report.text("Other work was running on the machine when these sections started (the"
          + " bench waited up to " + o.maxWait() + " s for it to stop): " + String.join("; ", noisy) + ".");
    }
    double minutes = (System.nanoTime() - started) / 6e10;
    report.text(String.format(Locale.ROOT, "Whole benchmark: %.1f min.", minutes));
    System.out.print("\n## Summary\n\n" + report.summaryTable());
    report.write(o.out().resolve("results.md"), head);
    System.out.println("\nresults: " + o.out().resolve("results.md"));
  }

  // ---------------------------------------------------------------- machine, versions, options

  private String header() {
    String commit = Platform.run(List.of("git", "-C", repoRoot().toString(), "rev-parse",
        "--short", "HEAD")).strip();
    boolean dirty = !Platform.run(List.of("git", "-C", repoRoot().toString(), "status",
        "--porcelain", "--untracked-files=no")).isBlank();
    String jarTime;
    try {
      jarTime = Files.getLastModifiedTime(o.jar()).toInstant().toString();
    } catch (IOException e) {
      jarTime = "?";
    }
    StringBuilder h = new StringBuilder();
    h.append("# pushgate benchmark").append(o.quick() ? " (--quick)" : "").append("\n\n");
    h.append("- date: ").append(DateTimeFormatter.ISO_INSTANT.format(
        Instant.now().atOffset(ZoneOffset.UTC).withNano(0))).append('\n');
    h.append("- machine: ").append(Runtime.getRuntime().availableProcessors()).append(" cores (")
        .append(Platform.cpuModel()).append("), ").append(Platform.memTotalMb())
        .append(" MiB RAM\n");
    h.append("- ").append(GitRun.version()).append('\n');
    h.append("- java -version: ").append(Platform.javaVersion().replace("\n", "; ")).append('\n');
    h.append("- appliance: ").append(o.jar()).append(" (built ").append(jarTime)
        .append(", commit ").append(commit.isEmpty() ? "?" : commit)
        .append(dirty ? " + uncommitted changes" : "").append(")\n");
    h.append("- appliance JVM options: ").append(String.join(" ", o.applianceJvm()))
        .append(" (plus -Xlog:gc to a file)\n");
    h.append("- all traffic on 127.0.0.1; the upstream is the appliance's own local forge, in"
        + " the same process as the gateway\n");
    return h.toString();
  }

  private static Path repoRoot() {
    return Path.of("").toAbsolutePath(); // bench/run starts the bench at the repository's root
  }

  private List<String> jvmOptions(Path dataDir) {
    List<String> jvm = new ArrayList<>(o.applianceJvm());
    jvm.add("-Xlog:gc:file=" + gcLog(dataDir));
    // one debug line per cache sync, with its duration (logging only; no behaviour changes)
    jvm.add("-Dorg.slf4j.simpleLogger.log.dev.pushgate.gateway.UpstreamCache=debug");
    return jvm;
  }

  private static Path gcLog(Path dataDir) {
    return dataDir.resolveSibling(dataDir.getFileName() + ".gc.log");
  }

  /**
   * Before each section: waits (up to --max-wait, default a minute) for other work on the machine (builds, tests)
   * to stop, and notes it in the report when it did not.
   */
  private void quiet(String section) {
    flushWrites();
    double busy = Platform.awaitQuiet(o.maxWait());
    String note = String.format(Locale.ROOT, "%s: machine %.0f%% busy before the section",
        section, busy * 100);
    step(note);
    if (busy > 0.10) {
      noisy.add(note);
    }
  }

  /**
   * Writes the kernel still holds back go to disk before a section: after the large pushes that
   * is gigabytes, whose write-back otherwise slowed the fsyncs of the next section's pushes.
   */
  private static void flushWrites() {
    try {
      new ProcessBuilder("sync").inheritIO().start().waitFor();
    } catch (java.io.IOException e) {
      // no sync(1) here: the section runs all the same
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** CPU used by other processes on the machine while a section ran. */
  private final class Noise {
    private final String section;
    private final long start = System.nanoTime();
    private final long machine0 = Platform.machineBusyTicks();
    private final long self0 = Platform.selfAndChildrenTicks();
    private final long app0;
    private final long pid;

    Noise(String section) {
      this.section = section;
      this.pid = app == null ? -1 : app.pid();
      this.app0 = pid < 0 ? 0 : Platform.processTicks(pid);
    }

    void end() {
      double secs = (System.nanoTime() - start) / 1e9;
      long appTicks = pid < 0 ? 0 : Math.max(0, Platform.processTicks(pid) - app0);
      long others = Platform.machineBusyTicks() - machine0
          - (Platform.selfAndChildrenTicks() - self0) - appTicks;
      double share = Math.max(0, others / (double) Platform.clockTicksPerSecond()
          / (secs * Runtime.getRuntime().availableProcessors()));
      noise.add(List.of(section, Stats.fmt(secs, 0), String.format(Locale.ROOT, "%.0f%%",
          share * 100)));
    }
  }

  private void step(String what) {
    progress.printf(Locale.ROOT, "[bench %tT] %s%n", System.currentTimeMillis(), what);
  }

  // ---------------------------------------------------------------- set-up

  /** The repositories every section needs, created up front (forge create is setup). */
  private List<String> repositories() {
    List<String> repos = new ArrayList<>(List.of("acme/widget", "acme/widget-d"));
    if (o.runs("large")) {
      for (int i = 0; i <= o.largeRuns(); i++) {
        repos.add("acme/big-d-" + i);
        repos.add("acme/big-g-" + i);
      }
    }
    if (o.runs("phases")) {
      repos.addAll(List.of("acme/ph-d-1", "acme/ph-g-1"));
    }
    if (o.runs("memory")) {
      repos.addAll(List.of("acme/mem-d", "acme/mem-g"));
      if (!o.quick()) {
        repos.addAll(List.of("acme/mem1g-d", "acme/mem1g-g"));
      }
    }
    if (o.runs("deny")) {
      repos.add("acme/deny-big");
    }
    if (o.runs("concurrency")) {
      for (int i = 0; i < maxLevel(); i++) {
        repos.add("acme/r-" + i);
      }
    }
    return repos;
  }

  private void setUp(RunningAppliance a) throws Exception {
    List<String> repos = repositories();
    step("creating " + repos.size() + " forge repositories");
    createForgeRepositories(a, repos);
    step("writing a 200-commit history into acme/widget");
    String token = ForgeToken.mintWrite(a, List.of("widget", "widget-d"));
    GitRun direct = directGit(token);
    template = work.resolve("template");
    direct.in(work, "clone", "-q", a.forgeUrl("acme/widget"), "template").ok();
    String root = direct.in(template, "rev-parse", "HEAD").ok().stdout().strip();
    Histories.smallCommits(direct, template, root, 199);
    // acme/widget is the gateway's target, acme/widget-d the direct baseline's: the same
    // history and branches, so that neither side's pushes move the other's upstream
    for (String repo : List.of("acme/widget", "acme/widget-d")) {
      direct.in(template, "push", "-q", a.forgeUrl(repo), "+main:refs/heads/main",
          "main:refs/heads/small-direct", "main:refs/heads/small-gw").ok();
    }
  }

  /**
   * {@code pushgate forge create} for each repository, then {@code receive.autogc=false} in each:
   * the forge stands in for GitHub, whose housekeeping does not run on this machine. (With JGit's
   * defaults, once a forge repository holds more than 50 packs, every push to it starts a full
   * repack in the background, and old packs stay for an hour, so this goes on; that would load
   * the two cores at random, and more on the side whose repository took more pushes.)
   */
  private void createForgeRepositories(RunningAppliance a, List<String> repos) throws Exception {
    a.forgeCreate(repos);
    GitRun git = git(Map.of());
    for (String repo : repos) {
      git.in(work, "config", "--file", a.forgeRepo(repo).resolve("config").toString(),
          "receive.autogc", "false").ok();
    }
  }

  private Path bigSource() throws Exception {
    if (bigSource == null) {
      step(String.format(Locale.ROOT, "generating %d MiB of random blobs in 50 commits",
          o.largeBytes() >> 20));
      bigSource = work.resolve("big-src.git");
      Histories.randomBlobs(git(Map.of()), bigSource, o.largeBytes(), 50, 8);
    }
    return bigSource;
  }

  private GitRun git(Map<String, String> env) {
    // a bound on a broken run: the 100 MiB pushes of a loaded machine take far less
    return new GitRun(home, env).withTimeout(java.time.Duration.ofMinutes(30));
  }

  /**
   * The jar under test as a person starts it, its log beside its data directory (appended to
   * across restarts); one run pushes hundreds of times a minute here, far past what one agent
   * may.
   */
  private static RunningAppliance startAppliance(Path jar, Path dataDir, List<String> jvm)
      throws Exception {
    Files.createDirectories(dataDir.getParent());
    return RunningAppliance.on(dataDir).jar(jar).jvm(jvm)
        .serve(List.of("--max-write-tokens-per-minute", "1000000"))
        .log(dataDir.resolveSibling(dataDir.getFileName() + ".log")).start();
  }

  /** git for the direct baseline: only a credential helper with a write token, no rewrites. */
  private GitRun directGit(String token) {
    return git(Map.of("GIT_CONFIG_GLOBAL", directConfig.toString(), "GH_TOKEN", token));
  }

  private static String runJson(String repo, String rules) {
    return "{\"workspaceId\":\"bench\",\"repository\":\"" + repo + "\""
        + (rules == null ? "" : ",\"rules\":" + rules) + "}";
  }

  private JsonNode newRun(RunningAppliance a, String repo) throws Exception {
    return a.createRun(runJson(repo, null));
  }

  private GitRun runGit(JsonNode run) {
    return git(RunningAppliance.runEnv(run));
  }

  // ---------------------------------------------------------------- 6. start-up

  private void startup() throws Exception {
    int fresh = o.quick() ? 3 : 5;
    int again = o.quick() ? 2 : 3;
    step("start-up: " + fresh + " starts on a new data directory, " + again + " on an existing one");
    List<List<String>> rows = new ArrayList<>();
    Path first = work.resolve("startup").resolve("fresh-0").resolve("data");
    for (String kind : List.of("new data directory", "existing data directory")) {
      List<Double> ms = new ArrayList<>();
      List<Double> rss = new ArrayList<>();
      List<Double> heap = new ArrayList<>();
      int n = kind.startsWith("new") ? fresh : again;
      for (int i = 0; i < n; i++) {
        Path data = kind.startsWith("new")
            ? work.resolve("startup").resolve("fresh-" + i).resolve("data") : first;
        try (RunningAppliance a = startAppliance(jar, data, jvmOptions(data))) {
          ms.add(a.startupNanos() / 1e6);
          Thread.sleep(2000);
          rss.add(ApplianceProbe.statusKb(a, "VmRSS") / 1024.0);
          heap.add(ApplianceProbe.heapInfoKb(a)[0] / 1024.0);
        }
      }
      rows.add(List.of(kind, String.valueOf(n), Stats.of(ms).summary(0),
          Stats.of(rss).summary(0), Stats.of(heap).summary(0)));
      if (kind.startsWith("new")) {
        report.summary("6. start-up to /healthz 200, ms (new data dir)", "", Stats.of(ms).summary(0),
            "", "", "");
        report.summary("6. idle RSS 2 s after start, MiB", "", Stats.of(rss).summary(0), "", "", "");
      }
    }
    report.heading("6. Start-up and idle memory");
    report.text("Process spawn to the first `GET /healthz` answered 200 (polled every 5 ms), then"
        + " RSS (`VmRSS`) and heap used (`jcmd PID GC.heap_info`) 2 s later, idle."
        + " A new data directory includes generating the local forge's 2048-bit App key and the"
        + " ledger key. Median [min–max].");
    report.table(List.of("data directory", "starts", "start-up (ms)", "idle RSS (MiB)",
        "idle heap used (MiB)"), rows);
  }

  // ---------------------------------------------------------------- 1. small push

  private void ensureSmallWorktrees() throws Exception {
    if (smallDirect != null) {
      return;
    }
    String token = ForgeToken.mintWrite(app, List.of("widget-d"));
    smallRun = newRun(app, "acme/widget");
    smallDirect = Worktree.cloneOf(directGit(token), template, work.resolve("small-d"),
        app.forgeUrl("acme/widget-d"), "refs/heads/small-direct");
    smallGateway = Worktree.cloneOf(runGit(smallRun), template, work.resolve("small-g"),
        GITHUB + "acme/widget.git", "refs/heads/small-gw");
    // The first pushes after start-up are timed apart: they run interpreted code. Then untimed
    // pushes until the JIT has compiled both paths, as in an appliance that has been up a while.
    for (int i = 0; i < 3 + o.smallWarmup(); i++) {
      for (Worktree w : List.of(smallDirect, smallGateway)) {
        w.commit();
        double ms = w.push().ok().millis();
        if (i < 3) {
          (w == smallDirect ? coldDirect : coldGateway).add(ms);
        }
      }
    }
  }

  /**
   * Repacks the small push's two forge repositories, untimed, between measurements. The forge's
   * own housekeeping is off (see {@link #createForgeRepositories}), so without this every push
   * would leave one more pack behind, and each warm-up push would make the upstream stand-in
   * slower for the rest of the run: with 150 packs, each object lookup searches 150 indexes,
   * which the gateway's sync pays more than a direct push does. GitHub keeps its repositories
   * packed in the background.
   */
  private void compactSmallForgeRepositories() throws Exception {
    GitRun git = git(Map.of());
    for (String repo : List.of("acme/widget", "acme/widget-d")) {
      git.in(work, "-C", app.forgeRepo(repo).toString(), "repack", "-a", "-d", "-q").ok();
    }
  }

  private void small() throws Exception {
    int n = o.smallRuns();
    step("small push: " + (3 + o.smallWarmup()) + " warm-up + " + n
        + " measured pushes each, direct and gateway");
    ensureSmallWorktrees();
    compactSmallForgeRepositories();
    List<Double> d = new ArrayList<>();
    List<Double> g = new ArrayList<>();
    long cpuD = 0;
    long cpuG = 0;
    for (int i = 0; i < n; i++) {
      List<Worktree> order = i % 2 == 0 ? List.of(smallDirect, smallGateway)
          : List.of(smallGateway, smallDirect);
      for (Worktree w : order) {
        w.commit();
        long cpu0 = ApplianceProbe.cpuNanos(app);
        GitRun.Result r = w.push().ok();
        long cpu = ApplianceProbe.cpuNanos(app) - cpu0;
        if (w == smallDirect) {
          d.add(r.millis());
          cpuD += cpu;
        } else {
          g.add(r.millis());
          cpuG += cpu;
        }
      }
    }
    // the same push when upstream has moved since the last push: before each, another push
    // (direct, not timed) lands a commit on another branch of the repository. Direct and gateway
    // are both measured in this loop, alternating, so that both forge repositories take the same
    // pushes (two per round) and the same noise: against the direct push of the loop above, the
    // gateway's upstream would hold up to twice as many packs as the direct one's.
    String moverToken = ForgeToken.mintWrite(app, List.of("widget", "widget-d"));
    Worktree mover = Worktree.cloneOf(directGit(moverToken), template, work.resolve("small-mover"),
        app.forgeUrl("acme/widget"), "refs/heads/mover");
    Worktree moverD = Worktree.cloneOf(directGit(moverToken), template,
        work.resolve("small-mover-d"), app.forgeUrl("acme/widget-d"), "refs/heads/mover");
    compactSmallForgeRepositories();
    List<Double> movedD = new ArrayList<>();
    List<Double> moved = new ArrayList<>();
    long cpuM = 0;
    for (int i = 0; i < n; i++) {
      for (Worktree m : List.of(mover, moverD)) {
        m.commit();
        m.push().ok();
      }
      List<Worktree> order = i % 2 == 0 ? List.of(smallDirect, smallGateway)
          : List.of(smallGateway, smallDirect);
      for (Worktree w : order) {
        w.commit();
        long cpu0 = ApplianceProbe.cpuNanos(app);
        double ms = w.push().ok().millis();
        if (w == smallDirect) {
          movedD.add(ms);
        } else {
          moved.add(ms);
          cpuM += ApplianceProbe.cpuNanos(app) - cpu0;
        }
      }
    }
    Stats sd = Stats.of(d);
    Stats sg = Stats.of(g);
    Stats smd = Stats.of(movedD);
    Stats sm = Stats.of(moved);
    double ratio = sg.median() / sd.median();
    double ratioMoved = sm.median() / smd.median();
    report.heading("1. Small push");
    report.text("One new commit changing one small file, pushed onto an existing branch of a"
        + " repository with 200 commits in 20 files (`acme/widget` through the gateway,"
        + " `acme/widget-d` direct: the same history). `git push` wall time from process start"
        + " to exit, " + n + " each after " + (3 + o.smallWarmup()) + " untimed pushes each"
        + " and a `git repack -a -d` of both forge repositories (untimed, as GitHub keeps its"
        + " repositories packed; the forge's own housekeeping is off during the bench)"
        + " (the JIT compiles both paths, as in an appliance that has been up a while), direct"
        + " and gateway alternating (the first pushes after start-up are in section 1c)."
        + " *upstream"
        + " moved*: the same pushes when, since their previous push, another push (direct,"
        + " not timed) has landed on another branch of their repository, so the gateway's cache"
        + " sync has something to fetch; direct and gateway alternate in a loop of their own, so"
        + " that both forge repositories take the same pushes. Appliance CPU is the user+system time of the appliance"
        + " process (`/proc/PID/stat`) per push; for the direct push it is the local forge's"
        + " alone.");
    report.table(List.of("push", "n", "median (ms)", "min (ms)", "max (ms)", "p90 (ms)",
            "appliance CPU per push (ms)"),
        List.of(row("direct to the forge", sd, cpuD / 1e6 / n),
            row("through the gateway", sg, cpuG / 1e6 / n),
            row("direct, upstream moved", smd, Double.NaN),
            row("through the gateway, upstream moved", sm, cpuM / 1e6 / n)));
    report.text(String.format(Locale.ROOT, "gateway / direct (medians): **%.2f×** (target ≤"
        + " 1.2×), upstream moved **%.2f×** (target ≤ 1.5×)", ratio, ratioMoved));
    report.summary("1. small push, ms (n=" + n + ")", sd.summary(0), sg.summary(0),
        fmtRatio(ratio), "≤ 1.2×", ratio <= 1.2 ? "yes" : "**no**");
    report.summary("1. small push, upstream moved since the last push, ms", smd.summary(0),
        sm.summary(0), fmtRatio(ratioMoved), "≤ 1.5×", ratioMoved <= 1.5 ? "yes" : "**no**");
  }

  /**
   * The first 3 pushes each after start-up, pooled over {@code --starts} start-ups: the first
   * start (timed in {@link #ensureSmallWorktrees}, on a new data directory), then restarts of the
   * same appliance on its data directory. Three pushes of one start-up scatter by ±0.3× from run
   * to run (the JIT's first compilations land at random points); pooled, the median is stable.
   */
  private void firstPushesAfterRestarts() throws Exception {
    for (int s = 1; s < o.starts(); s++) {
      quiet("first pushes after start-up " + (s + 1));
      app.close();
      app.restart();
      Noise n = new Noise("first pushes after start-up " + (s + 1));
      for (int i = 0; i < 3; i++) {
        for (Worktree w : i % 2 == 0 ? List.of(smallDirect, smallGateway)
            : List.of(smallGateway, smallDirect)) {
          w.commit();
          (w == smallDirect ? coldDirect : coldGateway).add(w.push().ok().millis());
        }
      }
      n.end();
    }
    Stats firstD = Stats.of(coldDirect);
    Stats firstG = Stats.of(coldGateway);
    double ratio = firstG.median() / firstD.median();
    report.heading("1c. The first pushes after start-up");
    report.text(String.format(Locale.ROOT, "The small push of section 1, the first 3 each"
        + " (direct and gateway alternating) after each of %d start-ups: the first on a new data"
        + " directory, before section 1's warm-up; then %d restart(s) of the same appliance on"
        + " its data directory, after every other section. The code is still interpreted. Pooled"
        + " medians: gateway / direct **%.2f×** (target ≤ 1.6×).", o.starts(), o.starts() - 1,
        ratio));
    report.table(List.of("push", "n", "median (ms)", "min (ms)", "max (ms)", "p90 (ms)",
            "appliance CPU per push (ms)"),
        List.of(row("direct, first pushes after start-up", firstD, Double.NaN),
            row("through the gateway, first pushes after start-up", firstG, Double.NaN)));
    report.summary("1c. small push, the first 3 after each of " + o.starts() + " start-ups, ms",
        firstD.summary(0), firstG.summary(0), fmtRatio(ratio), "≤ 1.6×",
        ratio <= 1.6 ? "yes" : "**no**");
  }

  /**
   * The small push once more at the end, after every other section has pushed into the same
   * appliance (the gateway's cache of {@code acme/widget} has taken every push to it since).
   */
  private void smallAgain() throws Exception {
    int n = o.quick() ? 5 : 10;
    step("small push again after the other sections: " + n + " each");
    compactSmallForgeRepositories();
    List<Double> d = new ArrayList<>();
    List<Double> g = new ArrayList<>();
    long cpuD = 0;
    long cpuG = 0;
    Map<String, Long> threadsD = new java.util.TreeMap<>();
    Map<String, Long> threadsG = new java.util.TreeMap<>();
    for (int i = 0; i < n; i++) {
      for (Worktree w : i % 2 == 0 ? List.of(smallDirect, smallGateway)
          : List.of(smallGateway, smallDirect)) {
        w.commit();
        Map<String, Long> t0 = ApplianceProbe.threadTicks(app);
        long cpu0 = ApplianceProbe.cpuNanos(app);
        (w == smallDirect ? d : g).add(w.push().ok().millis());
        long cpu = ApplianceProbe.cpuNanos(app) - cpu0;
        Map<String, Long> t1 = ApplianceProbe.threadTicks(app);
        Map<String, Long> into = w == smallDirect ? threadsD : threadsG;
        t1.forEach((k, v) -> into.merge(k, v - t0.getOrDefault(k, 0L), Long::sum));
        if (w == smallDirect) {
          cpuD += cpu;
        } else {
          cpuG += cpu;
        }
      }
    }
    JsonNode audit = app.control().get("/v1/audit?limit=10000").body().get("decisions");
    report.heading("1b. Small push again, at the end");
    report.text(String.format(Locale.ROOT, "The small push of section 1, %d more each after all"
            + " other sections ran on the same appliance (%d audited ref updates so far). Direct"
            + " %s ms, gateway %s ms (median [min–max]), gateway / direct **%.2f×**; appliance"
            + " CPU per push, now that it is warm: direct %.0f ms, gateway %.0f ms. Packs on disk"
            + " now: the gateway's cache of `acme/widget` %d, the forge's `acme/widget` %d,"
            + " `acme/widget-d` %d.", n, audit == null ? -1 : audit.size(),
        Stats.of(d).summary(0), Stats.of(g).summary(0), Stats.of(g).median() / Stats.of(d).median(),
        cpuD / 1e6 / n, cpuG / 1e6 / n, packs(app.cacheRepo("acme/widget")), packs(app.forgeRepo("acme/widget")),
        packs(app.forgeRepo("acme/widget-d"))));
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
    report.text("Appliance CPU per push by kind of thread (`/proc/PID/task/*/stat`, thread names"
        + " with numbers replaced by N, truncated by the kernel to 15 characters; clock ticks of "
        + (long) msPerTick + " ms, so small values are coarse):");
    report.table(List.of("thread", "direct (ms per push)", "gateway (ms per push)"), threadRows);
    report.summary("1b. small push at the end of the run, ms (n=" + n + ")", Stats.of(d).summary(0),
        Stats.of(g).summary(0), fmtRatio(Stats.of(g).median() / Stats.of(d).median()), "≤ 1.2×",
        Stats.of(g).median() / Stats.of(d).median() <= 1.2 ? "yes" : "**no**");
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

  private static String fmtRatio(double r) {
    return String.format(Locale.ROOT, "%.2f×", r);
  }

  // ---------------------------------------------------------------- phases on the wire

  /** Per-push times taken from the wire by the timing proxy. */
  private record Phases(double total, double authRetry, double refs, double upload,
      double afterPack) {}

  private static Phases phasesOf(GitRun.Result r, List<TimingProxy.Exchange> ex) {
    double auth = 0;
    double refs = Double.NaN;
    TimingProxy.Exchange post = null;
    for (TimingProxy.Exchange e : ex) {
      if (e.path.contains("/info/refs") && e.status == 401) {
        auth += (e.responseLastByte - e.requestStart) / 1e6;
      } else if (e.path.contains("/info/refs") && e.status == 200) {
        refs = e.serverMillis();
      } else if (e.path.endsWith("/git-receive-pack") && e.method.equals("POST")) {
        post = e; // the last one: a large push probes first
      }
    }
    return new Phases(r.millis(), auth, refs, post == null ? Double.NaN : post.uploadMillis(),
        post == null ? Double.NaN : post.serverMillis());
  }

  private void phases() throws Exception {
    int n = o.quick() ? 5 : 8;
    step("phases: " + n + " small pushes each through a timing proxy, and one large each");
    ensureSmallWorktrees();
    compactSmallForgeRepositories();
    Map<String, List<Phases>> byKind = new LinkedHashMap<>();
    String logBefore = app.logText();
    GatewayMetrics m0 = GatewayMetrics.scrape(app);
    GatewayMetrics m1;
    try (TimingProxy proxy = new TimingProxy(app.port())) {
      String viaProxy = "http.proxy=" + proxy.url();
      for (int i = 0; i < n; i++) {
        for (Worktree w : List.of(smallDirect, smallGateway)) {
          w.commit();
          proxy.drain();
          GitRun.Result r = w.push("-c", viaProxy).ok();
          byKind.computeIfAbsent(w == smallDirect ? "small, direct" : "small, gateway",
              k -> new ArrayList<>()).add(phasesOf(r, proxy.drainAnswered()));
        }
      }
      m1 = GatewayMetrics.scrape(app);
      Path src = bigSource();
      String token = ForgeToken.mintWrite(app, List.of("ph-d-1"));
      proxy.drain();
      GitRun.Result rd = directGit(token).in(src, "-c", viaProxy, "push",
          app.forgeUrl("acme/ph-d-1"), "main:refs/heads/big").ok();
      byKind.put("large, direct", List.of(phasesOf(rd, proxy.drainAnswered())));
      JsonNode run = newRun(app, "acme/ph-g-1");
      GitRun.Result rg = runGit(run).in(src, "-c", viaProxy, "push", GITHUB + "acme/ph-g-1.git",
          "main:refs/heads/big").ok();
      byKind.put("large, gateway", List.of(phasesOf(rg, proxy.drainAnswered())));
    }
    GatewayMetrics m2 = GatewayMetrics.scrape(app);
    List<Double> smallSyncs = new ArrayList<>();
    List<Double> largeSyncs = new ArrayList<>();
    Matcher m = SYNC_LINE.matcher(app.logText().substring(logBefore.length()));
    while (m.find()) {
      (m.group(1).equals("acme/widget") ? smallSyncs : largeSyncs)
          .add(Double.parseDouble(m.group(2)));
    }
    List<Double> hooks = new ArrayList<>();
    JsonNode audit = app.control().get("/v1/audit?runId=" + smallRun.get("runId").asText())
        .body().get("decisions");
    for (int i = Math.max(0, audit.size() - n); i < audit.size(); i++) {
      hooks.add(audit.get(i).get("durationMillis").asDouble());
    }
    List<List<String>> rows = new ArrayList<>();
    byKind.forEach((kind, list) -> rows.add(List.of(kind, String.valueOf(list.size()),
        med(list, Phases::total), med(list, Phases::authRetry), med(list, Phases::refs),
        med(list, Phases::upload), med(list, Phases::afterPack),
        med(list, p -> p.total() - p.authRetry() - p.refs() - p.upload() - p.afterPack()))));
    report.heading("Phases of a push, on the wire");
    report.text("The same pushes with git's `http.proxy` pointed at a timing relay on"
        + " 127.0.0.1, which timestamps each request and response. *auth retry*: the"
        + " unauthenticated first request and its 401 (git sends credentials only when asked;"
        + " the gateway's header is sent up front). *refs*: `GET info/refs` until the first"
        + " byte of the answer (the gateway syncs its cache from upstream first). *upload*: the"
        + " `POST git-receive-pack` body (git's pack-objects streams into it). *after pack*: last"
        + " byte of the pack to first byte of the answer (receive, index, check, rules, and for"
        + " the gateway the forward upstream). *client + rest*: everything else (process start,"
        + " ref negotiation in git, response transfer, exit). Medians, ms.");
    report.table(List.of("push", "n", "git total", "auth retry", "refs", "upload", "after pack",
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
    report.text(String.format(Locale.ROOT, "Inside the gateway (its `/metrics` timers and the"
            + " audit log): cache sync before the advertisement (`pushgate_cache_sync_seconds`):"
            + " small %s, large %s.%s Pre-receive hook (judge, audit, mint, forward, settle;"
            + " the audit's `durationMillis`): small median %s ms [%s–%s].",
        syncSmall, syncLarge, forward, Stats.fmt(Stats.of(hooks).median(), 0),
        Stats.fmt(Stats.of(hooks).min(), 0), Stats.fmt(Stats.of(hooks).max(), 0)));
  }

  private static String med(List<Phases> list, java.util.function.ToDoubleFunction<Phases> f) {
    return Stats.fmt(Stats.of(list.stream().map(p -> f.applyAsDouble(p)).toList()).median(), 0);
  }

  // ---------------------------------------------------------------- 2. large push

  private void large() throws Exception {
    int n = o.largeRuns();
    Path src = bigSource();
    step(String.format(Locale.ROOT, "large push: 1 warm-up + %d measured pushes of %d MiB each,"
        + " direct and gateway, each into a new repository", n, o.largeBytes() >> 20));
    List<String> names = new ArrayList<>();
    for (int i = 0; i <= n; i++) {
      names.add("big-d-" + i);
    }
    GitRun direct = directGit(ForgeToken.mintWrite(app, names));
    List<Double> d = new ArrayList<>();
    List<Double> g = new ArrayList<>();
    long cpuD = 0;
    long cpuG = 0;
    for (int i = 0; i <= n; i++) {
      JsonNode run = newRun(app, "acme/big-g-" + i);
      GitRun gateway = runGit(run);
      boolean directFirst = i % 2 == 0;
      for (int side = 0; side < 2; side++) {
        boolean isDirect = (side == 0) == directFirst;
        long cpu0 = ApplianceProbe.cpuNanos(app);
        GitRun.Result r = isDirect
            ? direct.in(src, "push", app.forgeUrl("acme/big-d-" + i), "main:refs/heads/big").ok()
            : gateway.in(src, "push", GITHUB + "acme/big-g-" + i + ".git", "main:refs/heads/big")
                .ok();
        long cpu = ApplianceProbe.cpuNanos(app) - cpu0;
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
      progress.printf(Locale.ROOT, "  large %d/%d%n", i, n);
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
    long mib = o.largeBytes() >> 20;
    report.heading("2. Large initial push");
    report.text(String.format(Locale.ROOT, "%d MiB of random (incompressible) bytes in 50"
        + " commits, pushed as a new branch into a new repository (one fresh forge repository"
        + " per push). The source repository is packed once by `git fast-import`, so git reuses"
        + " the packed objects and every push sends the same %d MiB pack. 1 warm-up and %d"
        + " measured pushes each, alternating.", mib, mib, n));
    report.table(List.of("push", "n", "median (s)", "min (s)", "max (s)",
            "appliance CPU per push (s)", "throughput (MiB/s, median)"),
        List.of(largeRow("direct to the forge", sd, cpuD / 1e9 / n, mib),
            largeRow("through the gateway", sg, cpuG / 1e9 / n, mib)));
    report.text(String.format(Locale.ROOT, "gateway / direct (medians): **%.2f×** (target ≤"
        + " 1.5×); pair by pair (each gateway push over the direct push next to it): median"
        + " %.2f×, from %.2f× to %.2f×", ratio, sp.median(), sp.min(), sp.max()));
    report.summary("2. large push " + mib + " MiB, s (n=" + n + ")", sd.summary(2),
        sg.summary(2), fmtRatio(ratio), "≤ 1.5×", ratio <= 1.5 ? "yes" : "**no**");
  }

  private static List<String> largeRow(String name, Stats s, double cpuS, long mib) {
    return List.of(name, String.valueOf(s.count()), Stats.fmt(s.median(), 2),
        Stats.fmt(s.min(), 2), Stats.fmt(s.max(), 2), Stats.fmt(cpuS, 2),
        Stats.fmt(mib / s.median(), 0));
  }

  // ---------------------------------------------------------------- 4. memory

  private void memory() throws Exception {
    Path data = app.dataDir;
    Path gcLog = gcLog(data);
    step("memory: peak RSS and heap during large pushes");
    Platform.run(List.of("jcmd", String.valueOf(app.pid()), "GC.run"));
    Thread.sleep(1000);
    long[] idleHeap = ApplianceProbe.heapInfoKb(app);
    long idleRss = ApplianceProbe.statusKb(app, "VmRSS");
    record Case(String label, Path src, String repo, boolean gateway, long mib) {}
    List<Case> cases = new ArrayList<>();
    long mib = o.largeBytes() >> 20;
    Path src = bigSource();
    cases.add(new Case(mib + " MiB, direct", src, "acme/mem-d", false, mib));
    cases.add(new Case(mib + " MiB, gateway", src, "acme/mem-g", true, mib));
    String skipped = null;
    if (o.quick()) {
      skipped = "The 1 GiB push is skipped with --quick.";
    } else if (Platform.freeDiskMb(work) < 8 * 1024) {
      skipped = "The 1 GiB push is skipped: less than 8 GiB free in " + work + " ("
          + Platform.freeDiskMb(work) + " MiB); it needs the source, two forge copies and the"
          + " gateway's cache.";
    } else {
      // 500 commits of 2 MiB: the same blob size as the 100 MiB push, ten times the pack, so
      // that only the pack's size differs
      step("memory: generating 1 GiB of random blobs in 500 commits");
      Path big = work.resolve("big1g-src.git");
      Histories.randomBlobs(git(Map.of()), big, 1024L * 1024 * 1024, 500, 9);
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
      step("memory: " + c.label());
      GitRun git = c.gateway() ? runGit(newRun(app, c.repo()))
          : directGit(ForgeToken.mintWrite(app, List.of(c.repo().substring(5))));
      String url = c.gateway() ? GITHUB + c.repo() + ".git" : app.forgeUrl(c.repo());
      Platform.run(List.of("jcmd", String.valueOf(app.pid()), "GC.run"));
      Thread.sleep(500);
      MemoryWatch.Peak p;
      GitRun.Result r;
      try (MemoryWatch w = MemoryWatch.start(app, gcLog)) {
        r = git.in(c.src(), "push", url, "main:refs/heads/big").ok();
        p = w.stop();
      }
      rssReset &= p.rssReset();
      peaks.put(c.label(), p);
      Platform.run(List.of("jcmd", String.valueOf(app.pid()), "GC.run"));
      double retained = ApplianceProbe.heapInfoKb(app)[0] / 1024.0;
      retainedMb.put(c.label(), retained);
      rows.add(List.of(c.label(), Stats.fmt(r.millis() / 1000, 1), Stats.fmt(c.mib() / (r.millis()
              / 1000), 0), Stats.fmt(p.rssMb(), 0), Stats.fmt(p.heapUsedMb(), 0),
          Stats.fmt(p.heapCommittedMb(), 0),
          p.gcs() == 0 ? "no GC" : Stats.fmt(p.liveAfterGcMb(), 0),
          String.valueOf(p.gcs()), Stats.fmt(retained, 0)));
    }
    report.heading("4. Memory during large pushes");
    report.text("Before each push a full GC (`jcmd PID GC.run`) and a reset of the peak RSS"
        + " (`echo 5 > /proc/PID/clear_refs`); during it `jstat -gc PID 100` samples the heap."
        + " *peak RSS* is `VmHWM` after the push; *peak heap used* the largest jstat sample"
        + " (eden + survivors + old); *heap after GC* the largest occupancy left after a"
        + " collection during the push (`-Xlog:gc`; young collections leave promoted garbage and"
        + " 2 MiB blobs are humongous objects in a 512 MiB G1 heap, so this over-states what is"
        + " live); *after the push + full GC* what the push left behind. The appliance runs with "
        + String.join(" ", o.applianceJvm()) + "; the direct push's numbers are the local"
        + " forge's own (same process). The 1 GiB history is 500 commits of 2 MiB blobs, the"
        + " blob size of the " + (o.largeBytes() >> 20) + " MiB one, so only the pack's size"
        + " differs."
        + (rssReset ? "" : " (The kernel refused `clear_refs`; peak RSS is the largest"
        + " sampled VmRSS.)"));
    report.table(List.of("push", "time (s)", "MiB/s", "peak RSS (MiB)", "peak heap used (MiB)",
        "heap committed (MiB)", "heap after GC, max (MiB)", "GCs",
        "heap after the push + full GC (MiB)"), rows);
    if (skipped != null) {
      report.text(skipped);
    }
    MemoryWatch.Peak gSmall = peaks.get(mib + " MiB, gateway");
    MemoryWatch.Peak gBig = peaks.get("1024 MiB, gateway");
    report.summary("4. peak RSS / heap after GC during the " + mib + " MiB push, MiB",
        fmtPeak(peaks.get(mib + " MiB, direct")), fmtPeak(gSmall), "", "", "");
    if (gBig != null) {
      MemoryWatch.Peak dBig = peaks.get("1024 MiB, direct");
      // What the push keeps alive (the most left after a GC) with 10x the pack: within 1.5x
      // (or 32 MiB) of the smaller push's; when that one saw no GC, its peak use bounds it.
      // The peak heap used counts garbage not yet collected, so it follows how far G1 lets
      // eden grow during a longer push, for the direct push too.
      double small = gSmall.gcs() == 0 ? gSmall.heapUsedMb() : gSmall.liveAfterGcMb();
      boolean flat = gBig.liveAfterGcMb() <= Math.max(small * 1.5, small + 32);
      report.summary("4. peak RSS / heap after GC during the 1 GiB push, MiB", fmtPeak(dBig),
          fmtPeak(gBig), "", "heap growth independent of pack size", flat ? "yes" : "**no**");
      report.summary("4. peak heap used (garbage included), " + mib + " MiB → 1 GiB push, MiB",
          Stats.fmt(peaks.get(mib + " MiB, direct").heapUsedMb(), 0) + " → "
              + Stats.fmt(dBig.heapUsedMb(), 0),
          Stats.fmt(gSmall.heapUsedMb(), 0) + " → " + Stats.fmt(gBig.heapUsedMb(), 0), "", "",
          "");
    } else {
      report.summary("4. 1 GiB push", "", "skipped", "", "heap growth independent of pack size",
          "not measured");
    }
  }

  private static String fmtPeak(MemoryWatch.Peak p) {
    return p == null ? "" : Stats.fmt(p.rssMb(), 0) + " / "
        + (p.gcs() == 0 ? "no GC" : Stats.fmt(p.liveAfterGcMb(), 0));
  }

  // ---------------------------------------------------------------- 5. denied push

  private void deny() throws Exception {
    int n = o.quick() ? 5 : 10;
    int nBig = o.quick() ? 2 : 3;
    step("denied push: " + n + " small and " + nBig + " large pushes to a denied main");
    String rules = "{\"push\":[{\"refs\":\"refs/heads/main\",\"decision\":\"deny\","
        + "\"reason\":\"bench\"}]}";
    JsonNode run = app.createRun(runJson("acme/widget", rules));
    GitRun git = runGit(run);
    Worktree w = Worktree.cloneOf(git, template, work.resolve("deny-w"), GITHUB
        + "acme/widget.git", "refs/heads/main");
    w.commit();
    List<Phases> small = new ArrayList<>();
    List<Phases> big = new ArrayList<>();
    long cacheBefore;
    long cacheAfter;
    try (TimingProxy proxy = new TimingProxy(app.port())) {
      String viaProxy = "http.proxy=" + proxy.url();
      for (int i = 0; i <= n; i++) {
        proxy.drain();
        GitRun.Result r = w.push("-c", viaProxy);
        checkRefused(r);
        List<TimingProxy.Exchange> ex = proxy.drainAnswered();
        if (i > 0) {
          small.add(phasesOf(r, ex));
        }
      }
      Path src = bigSource();
      JsonNode bigRun = app.createRun(runJson("acme/deny-big", rules));
      GitRun bigGit = runGit(bigRun);
      // one push to create the cache, so that its growth below is the refused packs alone
      bigGit.in(template, "push", GITHUB + "acme/deny-big.git", "main:refs/heads/seed").ok();
      cacheBefore = Platform.du(app.cacheRepo("acme/deny-big"));
      for (int i = 0; i < nBig; i++) {
        proxy.drain();
        // forced: the history is unrelated to main's, and git would not even send a
        // non-fast-forward update otherwise; the rule refuses any update of main
        GitRun.Result r = bigGit.in(src, "-c", viaProxy, "push", GITHUB + "acme/deny-big.git",
            "+main:refs/heads/main");
        checkRefused(r);
        big.add(phasesOf(r, proxy.drainAnswered()));
      }
      cacheAfter = Platform.du(app.cacheRepo("acme/deny-big"));
    }
    Stats totalSmall = Stats.of(small.stream().map(Phases::total).toList());
    Stats afterSmall = Stats.of(small.stream().map(Phases::afterPack).toList());
    Stats totalBig = Stats.of(big.stream().map(Phases::total).toList());
    Stats afterBig = Stats.of(big.stream().map(Phases::afterPack).toList());
    Stats uploadBig = Stats.of(big.stream().map(Phases::upload).toList());
    long mib = o.largeBytes() >> 20;
    report.heading("5. Denied push");
    report.text("A run whose rules deny `refs/heads/main` (reason `bench`) pushes to main: one"
        + " small commit (" + n + " times after a warm-up), and the " + mib + " MiB history ("
        + nBig + " times). *git total*: until git exits with `! [remote rejected] ... (Control"
        + " Center policy: bench)`. *after pack*: from the last byte of the pack to the first"
        + " byte of the refusal, on the wire (timing relay as above).");
    report.table(List.of("denied push", "n", "git total (ms)", "upload (ms)",
            "after pack (ms)"),
        List.of(List.of("small commit", String.valueOf(small.size()), totalSmall.summary(0),
                Stats.fmt(Stats.of(small.stream().map(Phases::upload).toList()).median(), 0),
                afterSmall.summary(0)),
            List.of(mib + " MiB", String.valueOf(big.size()), totalBig.summary(0),
                Stats.fmt(uploadBig.median(), 0), afterBig.summary(0))));
    report.text(String.format(Locale.ROOT, "The refused %d MiB packs stay in the gateway's"
            + " cache: it grew by %.0f MiB over %d refused pushes.", mib,
        (cacheAfter - cacheBefore) / 1048576.0, nBig));
    double worst = Math.max(afterSmall.max(), afterBig.median());
    report.summary("5. denied push: after pack → refusal, ms (small; " + mib + " MiB)", "",
        afterSmall.summary(0) + "; " + afterBig.summary(0), "", "< 100 ms",
        worst < 100 ? "yes" : "**no**");
  }

  private static void checkRefused(GitRun.Result r) {
    if (r.exit() == 0 || !r.stderr().contains("Control Center policy: bench")) {
      throw new IllegalStateException("the push to main should have been refused by the rule:\n"
          + r.stderr());
    }
  }

  // ---------------------------------------------------------------- 3. concurrency

  private int[] levels() {
    return o.quick() ? new int[] {1, 4, 16} : new int[] {1, 4, 16, 64};
  }

  private int maxLevel() {
    int[] l = levels();
    return l[l.length - 1];
  }

  private int rounds(int level) {
    if (o.quick()) {
      return level == 1 ? 5 : level == 4 ? 3 : 2;
    }
    return level == 1 ? 10 : level == 4 ? 5 : level == 16 ? 3 : 2;
  }

  private void concurrency() throws Exception {
    int max = maxLevel();
    step("concurrency: " + max + " runs, workers and repositories");
    List<String> names = new ArrayList<>();
    for (int i = 0; i < max; i++) {
      names.add("r-" + i);
    }
    GitRun direct = directGit(ForgeToken.mintWrite(app, names));
    for (int i = 0; i < max; i++) {
      // the same 200 commits in every repository, under a branch of its own
      direct.in(template, "push", "-q", app.forgeUrl("acme/r-" + i), "main:refs/heads/base")
          .ok();
    }
    List<Worktree> sameRepo = new ArrayList<>();
    List<Worktree> ownRepo = new ArrayList<>();
    Path dir = Files.createDirectories(work.resolve("workers"));
    for (int i = 0; i < max; i++) {
      GitRun same = runGit(newRun(app, "acme/widget"));
      GitRun own = runGit(newRun(app, "acme/r-" + i));
      Worktree w = Worktree.cloneOf(same, template, dir.resolve("w-" + i),
          GITHUB + "acme/widget.git", "refs/heads/conc-" + i);
      sameRepo.add(w);
      ownRepo.add(w.as(own, GITHUB + "acme/r-" + i + ".git", "refs/heads/conc-" + i));
    }
    List<List<String>> rows = new ArrayList<>();
    ExecutorService pool = Executors.newCachedThreadPool();
    try {
      for (String mode : List.of("same repository", "a repository each")) {
        List<Worktree> workers = mode.startsWith("same") ? sameRepo : ownRepo;
        step("concurrency (" + mode + "): warm-up round of " + max);
        round(pool, workers.subList(0, max)); // creates the branches and the caches
        for (int level : levels()) {
          List<Double> latencies = new ArrayList<>();
          double wall = 0;
          int errors = 0;
          Set<String> kinds = new LinkedHashSet<>();
          for (int r = 0; r < rounds(level); r++) {
            RoundResult rr = round(pool, workers.subList(0, level));
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
          step(String.format(Locale.ROOT, "  %s, %d at once: %d pushes, p50 %.0f ms, p99 %.0f"
              + " ms, %d errors", mode, level, s.count(), s.median(), s.percentile(99), errors));
          rows.add(List.of(mode, String.valueOf(level), String.valueOf(s.count()),
              Stats.fmt(throughput, 1), Stats.fmt(s.median(), 0),
              Stats.fmt(s.percentile(95), 0), Stats.fmt(s.percentile(99), 0),
              Stats.fmt(s.max(), 0), Stats.fmt(tail, 2),
              errors + (kinds.isEmpty() ? "" : " (" + String.join("; ", kinds) + ")")));
          if (level == max) {
            boolean met = errors == 0 && tail <= 3;
            report.summary("3. " + level + " concurrent runs, " + mode
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
    report.heading("3. Concurrent runs");
    report.text("N runs (distinct runs, each with its own branch) push one small commit each at"
        + " the same moment; a round ends when the last push has finished, the next round's"
        + " commits are made before it starts (not timed). Latency is each `git push`'s wall"
        + " time; throughput is pushes divided by the rounds' wall time. *same repository*: all"
        + " runs push to `acme/widget`; *a repository each*: run i pushes to `acme/r-i` (same"
        + " 200-commit history). One untimed warm-up round at the highest level first. Rounds"
        + " per level: " + roundsText() + ".");
    report.table(List.of("repositories", "runs at once", "pushes", "pushes/s", "p50 (ms)",
        "p95 (ms)", "p99 (ms)", "max (ms)", "p99 / p50", "errors"), rows);
  }

  private String roundsText() {
    StringBuilder s = new StringBuilder();
    for (int l : levels()) {
      s.append(s.length() == 0 ? "" : ", ").append(l).append(" → ").append(rounds(l));
    }
    return s.toString();
  }

  private record RoundResult(List<GitRun.Result> results, double wallMs) {}

  private RoundResult round(ExecutorService pool, List<Worktree> workers) throws Exception {
    // commits first, four at a time, not timed
    List<Future<?>> prep = new ArrayList<>();
    ExecutorService committers = Executors.newFixedThreadPool(4);
    try {
      for (Worktree w : workers) {
        prep.add(committers.submit(() -> {
          w.commit();
          return null;
        }));
      }
      for (Future<?> f : prep) {
        f.get();
      }
    } finally {
      committers.shutdown();
    }
    CountDownLatch ready = new CountDownLatch(workers.size());
    CountDownLatch go = new CountDownLatch(1);
    List<Future<GitRun.Result>> pushes = new ArrayList<>();
    for (Worktree w : workers) {
      pushes.add(pool.submit(() -> {
        ready.countDown();
        go.await();
        return w.push();
      }));
    }
    ready.await();
    long start = System.nanoTime();
    go.countDown();
    List<GitRun.Result> results = new ArrayList<>();
    for (Future<GitRun.Result> f : pushes) {
      results.add(f.get());
    }
    return new RoundResult(results, (System.nanoTime() - start) / 1e6);
  }

  // ---------------------------------------------------------------- profile (JFR)

  private void profile() throws Exception {
    Path data = work.resolve("profile-data");
    Path recording = o.out().resolve("pushgate.jfr");
    Files.deleteIfExists(recording);
    List<String> jvm = new ArrayList<>(jvmOptions(data));
    jvm.add("-XX:FlightRecorderOptions=stackdepth=256"); // Jetty + JGit stacks run deep
    jvm.add("-XX:StartFlightRecording=filename=" + recording
        + ",settings=" + JfrProfile.settings(work) + ",dumponexit=true");
    step("profile: a second appliance with " + jvm.get(jvm.size() - 1));
    int smallN = o.quick() ? 15 : 40;
    List<JfrProfile.Window> windows = new ArrayList<>();
    RunningAppliance saved = app;
    Worktree savedD = smallDirect;
    Worktree savedG = smallGateway;
    JsonNode savedRun = smallRun;
    Path savedTemplate = template;
    try (RunningAppliance p = startAppliance(jar, data, jvm)) {
      app = p;
      smallDirect = null;
      smallGateway = null;
      Path workSaved = work.resolve("profile-work");
      Files.createDirectories(workSaved);
      List<String> repos = new ArrayList<>(List.of("acme/widget"));
      for (int i = 0; i < 3; i++) {
        repos.add("acme/pr-d-" + i);
        repos.add("acme/pr-g-" + i);
      }
      createForgeRepositories(p, repos);
      String token = ForgeToken.mintWrite(p, List.of("widget"));
      GitRun d = directGit(token);
      template = workSaved.resolve("template");
      d.in(workSaved, "clone", "-q", p.forgeUrl("acme/widget"), "template").ok();
      Histories.smallCommits(d, template, d.in(template, "rev-parse", "HEAD").ok().stdout()
          .strip(), 199);
      d.in(template, "push", "-q", p.forgeUrl("acme/widget"), "main:refs/heads/main",
          "main:refs/heads/small-direct", "main:refs/heads/small-gw").ok();
      smallRun = newRun(p, "acme/widget");
      smallDirect = Worktree.cloneOf(d, template, workSaved.resolve("small-d"),
          p.forgeUrl("acme/widget"), "refs/heads/small-direct");
      smallGateway = Worktree.cloneOf(runGit(smallRun), template, workSaved.resolve("small-g"),
          GITHUB + "acme/widget.git", "refs/heads/small-gw");
      for (int i = 0; i < 20; i++) { // warm-up: JIT
        for (Worktree w : List.of(smallDirect, smallGateway)) {
          w.commit();
          w.push().ok();
        }
      }
      windows.add(window("small pushes through the gateway", smallGateway, smallN));
      windows.add(window("small pushes direct to the forge", smallDirect, smallN / 2));
      Path src = bigSource();
      GitRun bigDirect = directGit(ForgeToken.mintWrite(p, List.of("pr-d-0", "pr-d-1", "pr-d-2")));
      bigDirect.in(src, "push", p.forgeUrl("acme/pr-d-0"), "main:refs/heads/big").ok();
      runGit(newRun(p, "acme/pr-g-0")).in(src, "push", GITHUB + "acme/pr-g-0.git",
          "main:refs/heads/big").ok();
      List<GitRun> gits = List.of(runGit(newRun(p, "acme/pr-g-1")), runGit(newRun(p, "acme/pr-g-2")));
      Thread.sleep(1000);
      Instant start = Instant.now();
      for (int i = 1; i <= 2; i++) {
        gits.get(i - 1).in(src, "push", GITHUB + "acme/pr-g-" + i + ".git", "main:refs/heads/big")
            .ok();
      }
      windows.add(new JfrProfile.Window(String.format(Locale.ROOT,
          "large pushes (%d MiB) through the gateway", o.largeBytes() >> 20), start,
          Instant.now(), 2));
      Thread.sleep(1000);
      start = Instant.now();
      for (int i = 1; i <= 2; i++) {
        bigDirect.in(src, "push", p.forgeUrl("acme/pr-d-" + i), "main:refs/heads/big").ok();
      }
      windows.add(new JfrProfile.Window(String.format(Locale.ROOT,
          "large pushes (%d MiB) direct to the forge", o.largeBytes() >> 20), start,
          Instant.now(), 2));
      // many runs at once on one repository
      int level = o.quick() ? 8 : 16;
      List<Worktree> workers = new ArrayList<>();
      Path dir = Files.createDirectories(workSaved.resolve("workers"));
      for (int i = 0; i < level; i++) {
        workers.add(Worktree.cloneOf(runGit(newRun(p, "acme/widget")), template,
            dir.resolve("w-" + i), GITHUB + "acme/widget.git", "refs/heads/conc-" + i));
      }
      ExecutorService pool = Executors.newCachedThreadPool();
      try {
        round(pool, workers); // warm-up: creates the branches
        Thread.sleep(1000);
        List<Double> ms = new ArrayList<>();
        start = Instant.now();
        for (int r = 0; r < 2; r++) {
          round(pool, workers).results().forEach(x -> ms.add(x.millis()));
        }
        windows.add(new JfrProfile.Window(String.format(Locale.ROOT, "%d runs pushing at once to"
            + " one repository through the gateway, 2 rounds (p50 %.0f ms)", level,
            Stats.of(ms).median()), start, Instant.now(), 2 * level));
      } finally {
        pool.shutdownNow();
      }
      Thread.sleep(500);
    } finally {
      app = saved;
      smallDirect = savedD;
      smallGateway = savedG;
      smallRun = savedRun;
      template = savedTemplate;
      copyQuietly(data.resolveSibling(data.getFileName() + ".log"),
          o.out().resolve("appliance-profile.log"));
    }
    step("profile: reading " + recording);
    report.heading("Profile (JFR)");
    report.text("A second appliance started with `-XX:StartFlightRecording=...`, with the JDK's"
        + " `profile` settings and lower thresholds for socket reads, locks and fsync"
        + " (recording: `" + recording + "`; `jfr summary` and `jfr print --events"
        + " jdk.ExecutionSample` read it). Samples are aggregated per workload window; each"
        + " sample is put in the first component found on its stack, in the order of the"
        + " component list, so the local forge (the upstream, in the same process) is kept"
        + " apart from the gateway's own work.");
    report.text(JfrProfile.analyze(recording, windows));
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
    step(String.format(Locale.ROOT, "profile: %s: median %.0f ms", name, Stats.of(ms).median()));
    return new JfrProfile.Window(String.format(Locale.ROOT, "%s (median %.0f ms each)", name,
        Stats.of(ms).median()), start, end, n);
  }

  private static void copyQuietly(Path from, Path to) {
    try {
      if (Files.exists(from)) {
        Files.copy(from, to, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      System.err.println("bench: could not copy " + from + ": " + e.getMessage());
    }
  }
}
