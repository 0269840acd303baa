package dev.pushgate.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.GitRun;
import dev.pushgate.testkit.RunningAppliance;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What idle runs cost one appliance (issue 35): starts the packaged appliance with the default
 * heap, creates idle runs with {@code POST /v1/runs} (no sandbox plan: each with its API boundary
 * and its login on the shared proxy) up to each level (default 0, 1,000, 10,000), and prints per
 * level the live runs, the process's threads, open descriptors and RSS, the heap per run (used
 * heap after a full GC, over the level-0 figure), the time the level's runs took to create and
 * the appliance's CPU time per run created (a figure the machine's other load moves less), and what one more run's push and API call take with those runs live (medians). Then it ends
 * every run with {@code DELETE /v1/runs/ID} and prints the time. Nothing is asserted.
 *
 * <p>Usage (see {@code bench/idle-runs/run}): {@code IdleRunsBench --jar JAR [--levels
 * 0,1000,10000] [--clients N] [--jfr FILE] [--keep]}; {@code --jfr} records the appliance with
 * JFR's {@code profile} settings into FILE (written when the appliance stops).
 */
public final class IdleRunsBench {
  private static final Pattern HEAP_USED = Pattern.compile("used (\\d+)K");
  private static final int SAMPLES = 5;

  private final RunningAppliance app;
  private final Path work;
  private final int clients;
  private final List<String> live = Collections.synchronizedList(new ArrayList<>());

  private IdleRunsBench(RunningAppliance app, Path work, int clients) {
    this.app = app;
    this.work = work;
    this.clients = clients;
  }

  public static void main(String[] args) throws Exception {
    StandaloneArgs a = StandaloneArgs.parse(args,
        "--jar JAR --levels 0,1000,10000 --clients N --jfr FILE --keep",
        "--levels", "--clients", "--jfr");
    List<Integer> levels = a.get("--levels", v -> Stream.of(v.split(","))
        .map(Integer::parseInt).sorted().toList(), List.of(0, 1_000, 10_000));
    int clients = a.get("--clients", Integer::parseInt, 4);
    Path jfr = a.path("--jfr");
    // The default heap: what the appliance gets when nobody sizes it.
    List<String> jvm = jfr == null ? List.of()
        : List.of("-XX:StartFlightRecording=settings=profile,dumponexit=true,filename=" + jfr);
    a.inScratch("pushgate-idle-runs-bench-", work -> {
      try (RunningAppliance app = RunningAppliance.on(work.resolve("data")).jar(a.jar())
          .log(work.resolve("appliance.log")).jvm(jvm).start()) {
        app.forgeCreate("acme/widget");
        new IdleRunsBench(app, work, clients).measure(levels);
      }
    });
  }

  private void measure(List<Integer> levels) throws Exception {
    System.err.printf(Locale.ROOT, "bench: levels %s, %d clients creating runs, load average %s,"
        + " %d cores%n", levels, clients, Platform.loadAverage(),
        Runtime.getRuntime().availableProcessors());
    List<String> rows = new ArrayList<>();
    List<String> cpuSplits = new ArrayList<>();
    long heapAtZero = -1;
    for (int level : levels) {
      int creating = level - live.size();
      long cpuBefore = cpuMillis();
      Map<String, Long> threadsBefore = ApplianceProbe.threadTicks(app);
      long started = System.nanoTime();
      create(creating);
      double createSeconds = (System.nanoTime() - started) / 1e9;
      if (creating > 0) {
        cpuSplits.add(String.format(Locale.ROOT, "appliance CPU per run created up to %,d, by"
            + " thread: %s; load average after: %s", level,
            cpuByThread(threadsBefore, creating), Platform.loadAverage()));
        System.err.println("bench: " + cpuSplits.get(cpuSplits.size() - 1));
      }
      String cpuPerRun = creating <= 0 ? "–" : String.format(Locale.ROOT, "%.1f ms",
          (cpuMillis() - cpuBefore) / (double) creating);
      long heap = usedHeapAfterGc();
      if (heapAtZero < 0) {
        heapAtZero = heap;
      }
      int threads = threads();
      long fds = descriptors();
      long rss = rssKib();
      double[] oneRun = pushAndApiCall();
      String perRun = live.isEmpty() ? "–"
          : String.format(Locale.ROOT, "%.1f KiB", (heap - heapAtZero) / (double) live.size());
      rows.add(String.format(Locale.ROOT, "| %,d | %d | %,d | %d MiB | %s | %.1f s | %s |"
          + " %.0f ms | %.0f ms |", live.size(), threads, fds, rss / 1024, perRun, createSeconds,
          cpuPerRun, oneRun[0], oneRun[1]));
      System.err.println("bench: " + rows.get(rows.size() - 1));
    }
    int ending = live.size();
    long cpuBeforeEnd = cpuMillis();
    Map<String, Long> threadsBeforeEnd = ApplianceProbe.threadTicks(app);
    long started = System.nanoTime();
    endAll();
    double teardown = (System.nanoTime() - started) / 1e9;
    String endCpu = ending == 0 ? "" : String.format(Locale.ROOT, "; appliance CPU per run ended"
        + " %.1f ms, by thread: %s", (cpuMillis() - cpuBeforeEnd) / (double) ending,
        cpuByThread(threadsBeforeEnd, ending));
    System.out.println("| live runs | threads | file descriptors | RSS | heap per run |"
        + " create (this level's runs) | appliance CPU per run created |"
        + " push (one more run, p50) | API call (p50) |");
    System.out.println("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    rows.forEach(System.out::println);
    System.out.println();
    cpuSplits.forEach(System.out::println);
    System.out.printf(Locale.ROOT, "%nteardown of %,d runs (DELETE /v1/runs/ID, %d clients):"
        + " %.1f s%s; after it: %d threads, %,d descriptors; load average %s%n", ending, clients,
        teardown, endCpu, threads(), descriptors(), Platform.loadAverage());
  }

  /** Creates {@code n} idle runs with {@link #clients} clients at once. */
  private void create(int n) throws Exception {
    if (n <= 0) {
      return;
    }
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int c = 0; c < clients; c++) {
        int share = n / clients + (c < n % clients ? 1 : 0);
        done.add(pool.submit(() -> {
          for (int i = 0; i < share; i++) {
            live.add(app.createRun(runRequest()).get("runId").asText());
          }
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
  }

  private void endAll() throws Exception {
    List<String> ids = List.copyOf(live);
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int c = 0; c < clients; c++) {
        int first = c;
        done.add(pool.submit(() -> {
          for (int i = first; i < ids.size(); i += clients) {
            int status = app.control().delete("/v1/runs/" + ids.get(i)).status();
            if (status != 200) {
              throw new IOException("DELETE /v1/runs/" + ids.get(i) + " answered " + status);
            }
          }
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
      live.clear();
    } finally {
      pool.shutdown();
    }
  }

  private static String runRequest() {
    return "{\"workspaceId\": \"ws-bench\", \"mode\": \"chat\", \"repository\": \"acme/widget\","
        + " \"rules\": {\"push\": \"allow\"}}";
  }

  /**
   * One more run's push of a small commit and its GitHub API call (through the shared proxy and
   * the boundary), p50 of {@link #SAMPLES} each, in ms. The run is ended afterwards.
   */
  private double[] pushAndApiCall() throws Exception {
    JsonNode run = app.createRun(runRequest());
    String runId = run.get("runId").asText();
    try {
      Path dir = Files.createDirectories(work.resolve("probe-" + runId));
      Map<String, String> env = new HashMap<>(RunningAppliance.runEnv(run));
      GitRun git = new GitRun(dir, env);
      Path clone = dir.resolve("widget");
      git.in(dir, "clone", "-q", "https://github.com/acme/widget.git", clone.toString()).ok();
      git.in(clone, "checkout", "-qb", "bench-" + runId).ok();
      List<Double> pushes = new ArrayList<>();
      for (int i = 0; i < SAMPLES; i++) {
        Files.writeString(clone.resolve("change.txt"), runId + " " + i + "\n");
        git.in(clone, "add", "change.txt").ok();
        git.in(clone, "-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit",
            "-qm", "change " + i).ok();
        pushes.add(git.in(clone, "push", "-q", "origin", "bench-" + runId).ok().millis());
      }
      List<Double> calls = new ArrayList<>();
      for (int i = 0; i < SAMPLES; i++) {
        calls.add(apiCall(run, dir));
      }
      return new double[] {Stats.of(pushes).median(), Stats.of(calls).median()};
    } finally {
      app.control().delete("/v1/runs/" + runId);
    }
  }

  /** {@code curl} with exactly the run's env, as a program of the run calls the API; in ms. */
  private static double apiCall(JsonNode run, Path dir) throws Exception {
    ProcessBuilder pb = new ProcessBuilder("curl", "-sS", "--max-time", "60", "-o", "/dev/null",
        "-w", "%{http_code} %{time_total}", "-H",
        "Authorization: token " + run.get("env").get("GH_TOKEN").asText(),
        "https://api.github.com/installation/repositories").directory(dir.toFile());
    Map<String, String> env = pb.environment();
    env.clear();
    env.put("PATH", "/usr/local/bin:/usr/bin:/bin");
    run.get("env").fields().forEachRemaining(e -> env.put(e.getKey(), e.getValue().asText()));
    Process p = pb.redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    if (!p.waitFor(90, TimeUnit.SECONDS) || !out.startsWith("200 ")) {
      p.destroyForcibly();
      throw new IOException("the API call through the run's proxy failed: " + out);
    }
    return Double.parseDouble(out.substring(4)) * 1000;
  }

  private long usedHeapAfterGc() throws Exception {
    jcmd("GC.run");
    Matcher m = HEAP_USED.matcher(jcmd("GC.heap_info"));
    if (!m.find()) {
      throw new IOException("jcmd GC.heap_info printed no used heap");
    }
    return Long.parseLong(m.group(1));
  }

  private String jcmd(String command) throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    Path jcmd = Path.of(java).resolveSibling("jcmd");
    Process p = new ProcessBuilder(Files.isExecutable(jcmd) ? jcmd.toString() : "jcmd",
        Long.toString(app.pid()), command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException("jcmd " + command + " failed: " + out);
    }
    return out;
  }

  /** The appliance's CPU time so far, user and system. */
  private long cpuMillis() {
    return ApplianceProbe.cpuNanos(app) / 1_000_000;
  }

  /**
   * The appliance's CPU since {@code before} ({@link ApplianceProbe#threadTicks}) per run,
   * by kind of thread, largest first; kinds under 2% of the whole left out.
   */
  private String cpuByThread(Map<String, Long> before, int runs) {
    Map<String, Long> delta = new HashMap<>();
    ApplianceProbe.threadTicks(app).forEach((k, v) -> delta.put(k, v - before.getOrDefault(k, 0L)));
    long total = delta.values().stream().mapToLong(Long::longValue).sum();
    double msPerTick = 1000.0 / Platform.clockTicksPerSecond();
    return delta.entrySet().stream()
        .filter(e -> e.getValue() * 50 >= total && e.getValue() > 0)
        .sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
        .map(e -> String.format(Locale.ROOT, "`%s` %.2f ms", e.getKey(),
            e.getValue() * msPerTick / runs))
        .collect(java.util.stream.Collectors.joining(", "));
  }

  private int threads() throws IOException {
    return (int) status("Threads:");
  }

  private long rssKib() throws IOException {
    return status("VmRSS:");
  }

  private long status(String field) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/" + app.pid() + "/status"))) {
      if (line.startsWith(field)) {
        return Long.parseLong(line.substring(field.length()).replace("kB", "").trim());
      }
    }
    throw new IOException("no " + field + " in /proc/" + app.pid() + "/status");
  }

  private long descriptors() throws IOException {
    try (Stream<Path> fds = Files.list(Path.of("/proc/" + app.pid() + "/fd"))) {
      return fds.count();
    }
  }
}
