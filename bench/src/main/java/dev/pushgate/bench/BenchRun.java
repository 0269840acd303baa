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
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What every section of the benchmark shares: the options, the scratch directory, the report,
 * the appliance the sections push into and its set-up, and the git commands they push with. One
 * class per section ({@link SmallPushBench}, {@link LargePushBench}, ...) runs on it; {@link
 * Bench} runs them in order.
 */
final class BenchRun {
  static final String GITHUB = "https://github.com/";

  final Options o;
  final Path work;
  final Report report;
  final PrintStream progress = System.err;
  /** The small push's worktrees, shared by the sections that push them. */
  final SmallWorktrees small = new SmallWorktrees(this);
  private final Path home;
  private final Path directConfig;
  private final List<String> noisy = new ArrayList<>();
  private final List<List<String>> noise = new ArrayList<>();
  /** The appliance the sections push into, once started. */
  RunningAppliance app;
  /** The jar under test, a snapshot in the scratch directory. */
  Path jar;
  /** The 200-commit history every small push starts from. */
  Path template;
  private Path bigSource;

  BenchRun(Options o, Path work) throws IOException {
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

  String header() {
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

  List<String> jvmOptions(Path dataDir) {
    List<String> jvm = new ArrayList<>(o.applianceJvm());
    jvm.add("-Xlog:gc:file=" + gcLog(dataDir));
    // one debug line per cache sync, with its duration (logging only; no behaviour changes)
    jvm.add("-Dorg.slf4j.simpleLogger.log.dev.pushgate.gateway.UpstreamCache=debug");
    return jvm;
  }

  static Path gcLog(Path dataDir) {
    return dataDir.resolveSibling(dataDir.getFileName() + ".gc.log");
  }

  /**
   * Before each section: waits (up to --max-wait, default a minute) for other work on the machine (builds, tests)
   * to stop, and notes it in the report when it did not.
   */
  void quiet(String section) {
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

  /** Runs one section between a wait for a quiet machine and the count of others' work. */
  void section(String name, Section body) throws Exception {
    quiet(name);
    Noise n = noise(name);
    body.run();
    n.end();
  }

  /** A section's body. */
  @FunctionalInterface
  interface Section {
    void run() throws Exception;
  }

  /** Starts counting the CPU other processes use until {@link Noise#end}. */
  Noise noise(String section) {
    return new Noise(section);
  }

  /** CPU used by other processes on the machine while a section ran. */
  final class Noise {
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

  void step(String what) {
    progress.printf(Locale.ROOT, "[bench %tT] %s%n", System.currentTimeMillis(), what);
  }

  /** Creates {@code repos} on the forge and writes the small push's history. */
  void setUp(RunningAppliance a, List<String> repos) throws Exception {
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
  void createForgeRepositories(RunningAppliance a, List<String> repos) throws Exception {
    a.forgeCreate(repos);
    GitRun git = git(Map.of());
    for (String repo : repos) {
      git.in(work, "config", "--file", a.forgeRepo(repo).resolve("config").toString(),
          "receive.autogc", "false").ok();
    }
  }

  Path bigSource() throws Exception {
    if (bigSource == null) {
      step(String.format(Locale.ROOT, "generating %d MiB of random blobs in 50 commits",
          o.largeBytes() >> 20));
      bigSource = work.resolve("big-src.git");
      Histories.randomBlobs(git(Map.of()), bigSource, o.largeBytes(), 50, 8);
    }
    return bigSource;
  }

  GitRun git(Map<String, String> env) {
    // a bound on a broken run: the 100 MiB pushes of a loaded machine take far less
    return new GitRun(home, env).withTimeout(java.time.Duration.ofMinutes(30));
  }

  /**
   * The jar under test as a person starts it, its log beside its data directory (appended to
   * across restarts); one run pushes hundreds of times a minute here, far past what one agent
   * may.
   */
  static RunningAppliance startAppliance(Path jar, Path dataDir, List<String> jvm)
      throws Exception {
    Files.createDirectories(dataDir.getParent());
    return RunningAppliance.on(dataDir).jar(jar).jvm(jvm)
        .serve(List.of("--max-write-tokens-per-minute", "1000000"))
        .log(dataDir.resolveSibling(dataDir.getFileName() + ".log")).start();
  }

  /** git for the direct baseline: only a credential helper with a write token, no rewrites. */
  GitRun directGit(String token) {
    return git(Map.of("GIT_CONFIG_GLOBAL", directConfig.toString(), "GH_TOKEN", token));
  }

  static String runJson(String repo, String rules) {
    return "{\"workspaceId\":\"bench\",\"repository\":\"" + repo + "\""
        + (rules == null ? "" : ",\"rules\":" + rules) + "}";
  }

  JsonNode newRun(RunningAppliance a, String repo) throws Exception {
    return a.createRun(runJson(repo, null));
  }

  GitRun runGit(JsonNode run) {
    return git(RunningAppliance.runEnv(run));
  }

  /** The closing part of the report: other work on the machine, the time, the summary. */
  void finish(long started, String head) throws IOException {
    report.heading("Other work on the machine");
    report.text("CPU used by processes other than the bench, its git commands and the appliance"
        + " while each section ran (machine busy time from `/proc/stat`, minus the bench JVM and"
        + " its waited-for children, minus the appliance), as a share of all "
        + Runtime.getRuntime().availableProcessors() + " cores. Sections with a high share ran"
        + " next to other builds or tests and are noisier.");
    report.table(List.of("section", "seconds", "other processes"), noise);
    if (!noisy.isEmpty()) {
      report.text("Other work was running on the machine when these sections started (the"
          + " bench waited up to " + o.maxWait() + " s for it to stop): "
          + String.join("; ", noisy) + ".");
    }
    double minutes = (System.nanoTime() - started) / 6e10;
    report.text(String.format(Locale.ROOT, "Whole benchmark: %.1f min.", minutes));
    System.out.print("\n## Summary\n\n" + report.summaryTable());
    report.write(o.out().resolve("results.md"), head);
    System.out.println("\nresults: " + o.out().resolve("results.md"));
  }

  static String fmtRatio(double r) {
    return String.format(Locale.ROOT, "%.2f×", r);
  }

  static void copyQuietly(Path from, Path to) {
    try {
      if (Files.exists(from)) {
        Files.copy(from, to, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      System.err.println("bench: could not copy " + from + ": " + e.getMessage());
    }
  }
}
