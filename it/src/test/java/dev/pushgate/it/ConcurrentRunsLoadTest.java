package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.GitRun;
import dev.pushgate.testkit.RunningAppliance;
import dev.pushgate.testkit.Wait;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Load is held: 64 runs on 4 repositories push small commits at once, 10 each
 * ({@code -Dload.rounds=N}; {@code -Dload.seconds=N} pushes for that long instead, a soak), with a
 * refused push to {@code main} before every fifth. Nothing is lost or wrong: each run's branch
 * upstream is its last accepted commit, {@code main} never moves, and the audit holds exactly one
 * decision per push. Nothing leaks: the appliance's threads, file descriptors and heap after the
 * load are what they were before it, within a stated slack.
 *
 * <p>A count of pushes, not a time: the pushes a slack is measured against are the same on a
 * busy machine as on a quiet one (40 s made 1,250 to 1,480 of them in CI, fewer under load).
 */
class ConcurrentRunsLoadTest {
  private static final int RUNS = Integer.getInteger("load.runs", 64);
  private static final int REPOS = 4;
  private static final int ROUNDS = Integer.getInteger("load.rounds", 10);
  /** Set for a soak: every run pushes for this long, however many rounds that makes. */
  private static final Long SOAK_SECONDS = Long.getLong("load.seconds");
  /**
   * What heap after a full GC may grow by: 52 KiB a push (64 MiB was the slack when 40 s made
   * 1,250 pushes), and never more than 64 MiB, however long a soak.
   */
  private static final long HEAP_SLACK_KB_PER_PUSH = 52;
  private static final long HEAP_SLACK_KB_MAX = 64 * 1024;
  private static final String REFUSED = "(Control Center policy: push to main is denied)";
  /** "Keep-Alive-Timer" as the kernel names the thread: Linux keeps 15 characters of a name. */
  private static final String KEEP_ALIVE_NATIVE = "Keep-Alive-Time";

  @TempDir Path tmp;

  /** One run and what it saw. */
  private static final class Worker {
    final int n;
    final String repo;
    final String runId;
    final GitRun git;
    final Path work;
    ObjectId lastAccepted;
    int accepted;
    int refused;

    Worker(int n, String repo, String runId, GitRun git, Path work) {
      this.n = n;
      this.repo = repo;
      this.runId = runId;
      this.git = git;
      this.work = work;
    }

    String branch() {
      return "refs/heads/run-" + n;
    }

    /** One allowed push (and, every fifth time, one refused push first). */
    void push(int round, ConcurrentLinkedQueue<String> errors) throws Exception {
      git.in(work, "commit", "-q", "--allow-empty", "-m", "run " + n + " push " + round).ok();
      if (round % 5 == 4) {
        GitRun.Result r = git.in(work, "push", "-q", "origin", "HEAD:main");
        if (r.exit() == 0 || !r.stderr().contains(REFUSED)) {
          errors.add("run " + n + ": a push to main was not refused: " + r.stderr());
        }
        refused++;
      }
      GitRun.Result r = git.in(work, "push", "-q", "origin", "HEAD:" + branch());
      if (r.exit() != 0) {
        errors.add("run " + n + " push " + round + " failed: " + r.stderr());
        return;
      }
      lastAccepted = ObjectId.fromString(git.in(work, "rev-parse", "HEAD").ok().stdout().strip());
      accepted++;
    }
  }

  /** What /proc and jcmd say about the appliance; thread names with their numbers removed. */
  record Usage(int threads, Map<String, Integer> threadsByName, int fds, int packFds,
      long heapUsedKb) {
    /**
     * Threads that pools grow with the load and retire after 60 s idle: Jetty's request threads
     * (at most 128 + 64 on loopback, 144 on the local forge's port for the gateway's upstream
     * requests, 64 on the control socket) and the gateway's copiers of streamed
     * packs (one per push streamed at once, so at most one per run here). How many are alive
     * after the load depends on how the pushes overlapped, which a busy machine changes.
     */
    int poolThreads() {
      return threadsByName.getOrDefault("pushgate-http", 0)
          + threadsByName.getOrDefault("pushgate-control", 0)
          + threadsByName.getOrDefault("pushgate-forge", 0)
          + threadsByName.getOrDefault("pushgate-stream", 0);
    }

    int otherThreads() {
      return threadsByName.values().stream().mapToInt(Integer::intValue).sum() - poolThreads();
    }

    @Override
    public String toString() {
      return "threads=" + threads + " (pool " + poolThreads() + ", other " + otherThreads()
          + "), fds=" + fds + " (packs " + packFds + "), heap=" + heapUsedKb + "K";
    }
  }

  @Test
  void sixtyFourRunsPushingAtOnceLoseNothingAndLeakNothing() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(RUNS);
    // Idle upstream connections kept 1 s, not the appliance's 60 s (UpstreamKeepAlive): each
    // count waits for that cache to empty, and a minute's wait a count was most of this test.
    try (RunningAppliance app = RunningAppliance.on(tmp.resolve("data"))
        .jvm(List.of("-Xmx512m", "-Dhttp.keepAlive.time.server=1")).start()) {
      List<String> repos = new ArrayList<>();
      List<Future<?>> created = new ArrayList<>();
      for (int r = 0; r < REPOS; r++) {
        String repo = "load/repo" + r;
        repos.add(repo);
        created.add(pool.submit(() -> {
          app.forgeCreate(repo);
          return null;
        }));
      }
      for (Future<?> f : created) {
        f.get();
      }
      Map<String, ObjectId> mains = new TreeMap<>();
      for (String repo : repos) {
        mains.put(repo, ForgeRefs.ref(app, repo, "refs/heads/main"));
      }

      Path home = Files.createDirectories(tmp.resolve("home"));
      // The runs are created, and the first of each repository cloned, at once; the other runs
      // of a repository start from a copy of its clone.
      List<Future<Worker>> made = new ArrayList<>();
      for (int i = 0; i < RUNS; i++) {
        int n = i;
        made.add(pool.submit(() -> worker(app, home, n, repos.get(n % REPOS))));
      }
      List<Worker> workers = new ArrayList<>();
      for (Future<Worker> f : made) {
        workers.add(f.get());
      }
      for (Worker w : workers.subList(REPOS, RUNS)) {
        copy(workers.get(w.n % REPOS).work, w.work);
      }

      ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
      // Warm-up: every run pushes once, so pools and caches are at their working size before
      // the first measurement.
      runAll(pool, workers, w -> w.push(0, errors));
      long counting = System.nanoTime();
      Usage before = usage(app.pid());
      double countedBefore = (System.nanoTime() - counting) / 1e9;

      long start = System.nanoTime();
      long deadline = SOAK_SECONDS == null ? 0 : start + TimeUnit.SECONDS.toNanos(SOAK_SECONDS);
      runAll(pool, workers, w -> {
        for (int round = 1; SOAK_SECONDS == null ? round <= ROUNDS : System.nanoTime() < deadline;
            round++) {
          w.push(round, errors);
        }
      });
      double took = (System.nanoTime() - start) / 1e9;
      counting = System.nanoTime();
      Usage after = usage(app.pid());
      double countedAfter = (System.nanoTime() - counting) / 1e9;

      int pushes = workers.stream().mapToInt(w -> w.accepted + w.refused).sum();
      // How long each count waited is printed for whoever looks at the suite's time.
      System.out.printf("load: %d runs, %d pushes (%d refused) in %.1f s (%.1f/s); before %s,"
              + " after %s; counted in %.1f s and %.1f s%n", RUNS, pushes,
          workers.stream().mapToInt(w -> w.refused).sum(), took, pushes / took, before, after,
          countedBefore, countedAfter);

      assertThat(errors).as("lost or wrong results").isEmpty();
      for (Worker w : workers) {
        assertThat(ForgeRefs.ref(app, w.repo, w.branch())).as(w.branch() + " of " + w.repo)
            .isEqualTo(w.lastAccepted);
        JsonNode audit = app.control().get("/v1/audit?runId=" + w.runId).body().get("decisions");
        int ok = 0;
        int denied = 0;
        for (JsonNode d : audit) {
          if (d.get("decision").asText().equals("allowed")) {
            assertThat(d.get("outcome").asText()).isEqualTo("ok");
            ok++;
          } else {
            assertThat(d.get("code").asText()).isEqualTo("RULE_DENIED");
            denied++;
          }
        }
        assertThat(ok).as("allowed decisions of run " + w.n).isEqualTo(w.accepted);
        assertThat(denied).as("refused decisions of run " + w.n).isEqualTo(w.refused);
      }
      for (String repo : repos) {
        assertThat(ForgeRefs.ref(app, repo, "refs/heads/main")).as(repo).isEqualTo(mains.get(repo));
      }

      // Slack: Jetty's pools grow with the load and retire idle threads only after 60 s, so
      // they are held to their bound; every other thread (timers, HTTP clients, JGit, the JVM's
      // compiler threads) to what it was plus a few. JGit keeps up to 128 pack files open in its
      // window cache (the cache and the forge gain one small pack per push). A leak per push
      // would be hundreds after this many pushes.
      assertThat(after.poolThreads()).as("pool threads")
          .isLessThanOrEqualTo(128 + 64 + 144 + 64 + RUNS);
      assertThat(after.otherThreads()).as("threads other than Jetty's pools: " + after
          .threadsByName()).isLessThanOrEqualTo(before.otherThreads() + 6);
      assertThat(after.fds() - after.packFds()).as("descriptors other than pack files")
          .isLessThanOrEqualTo(before.fds() - before.packFds() + 16);
      assertThat(after.packFds()).as("open pack files").isLessThanOrEqualTo(128 + 16);
      assertThat(after.heapUsedKb()).as("heap after a full GC, KiB, after " + pushes + " pushes")
          .isLessThanOrEqualTo(before.heapUsedKb()
              + Math.min(HEAP_SLACK_KB_MAX, HEAP_SLACK_KB_PER_PUSH * pushes));
    } finally {
      pool.shutdownNow();
    }
  }

  /** Run {@code n} of {@code repo}; the first run of each repository clones it. */
  private Worker worker(RunningAppliance app, Path home, int n, String repo) throws Exception {
    JsonNode run = app.createRun("{\"workspaceId\": \"load\", \"repository\": \"" + repo
        + "\", \"rules\": {\"push\": [{\"refs\": \"refs/heads/main\", \"decision\": \"deny\","
        + " \"reason\": \"push to main is denied\"}]}}");
    GitRun git = new GitRun(home, ForgeRefs.env(run));
    Path work = tmp.resolve("w" + n);
    if (n < REPOS) {
      git.in(tmp, "clone", "-q", "https://github.com/" + repo + ".git", work.toString()).ok();
    }
    return new Worker(n, repo, run.get("runId").asText(), git, work);
  }

  /** Something a worker does. */
  private interface WorkerTask {
    void run(Worker w) throws Exception;
  }

  private static void runAll(ExecutorService pool, List<Worker> workers, WorkerTask task)
      throws Exception {
    List<Future<?>> running = new ArrayList<>();
    for (Worker w : workers) {
      running.add(pool.submit(() -> {
        task.run(w);
        return null;
      }));
    }
    for (Future<?> f : running) {
      f.get(10, TimeUnit.MINUTES);
    }
  }

  private static void copy(Path from, Path to) throws Exception {
    Process p = new ProcessBuilder("cp", "-a", from.toString(), to.toString()).inheritIO().start();
    assertThat(p.waitFor()).isZero();
  }

  /**
   * Counted after a full GC once the JDK's keep-alive cache is empty: the JGit HTTP connections
   * the gateway opens upstream (cache syncs, forwards) are released by that cache once idle for
   * the appliance's -Dhttp.keepAlive.time.server, 1 s here, at its next sweep (every 5 s; its
   * "Keep-Alive-Timer" thread ends when the cache is empty), or by the garbage collector when
   * their streams were not read to the end. Until the thread has ended, the wait reads only
   * the kernel's thread names (no jcmd, each of which attaches to the appliance's JVM); the full
   * count, taken then, must still see it gone.
   */
  private static Usage usage(long pid) throws Exception {
    return Wait.forValue(Duration.ofSeconds(90),
        "the JDK's keep-alive cache to release the idle upstream connections",
        () -> {
          if (nativeThreadNames(pid).contains(KEEP_ALIVE_NATIVE)) {
            return null;
          }
          return measure(pid);
        },
        u -> u != null && !u.threadsByName().containsKey("Keep-Alive-Timer"));
  }

  /** The names of the process's threads as {@code /proc/PID/task/TID/comm} gives them. */
  private static Set<String> nativeThreadNames(long pid) throws Exception {
    Set<String> names = new HashSet<>();
    try (Stream<Path> tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
      for (Path task : tasks.toList()) {
        try {
          names.add(Files.readString(task.resolve("comm")).strip());
        } catch (java.io.IOException e) {
          // the thread ended while listing
        }
      }
    }
    return names;
  }

  /**
   * One jcmd (each attaches a JVM of its own to the appliance's): a full GC, so that unreachable
   * connections are collected and their sockets closed, another so that what they held is freed,
   * then the heap and the threads.
   */
  private static Usage measure(long pid) throws Exception {
    String jcmd = jcmd(pid, "GC.run", "GC.run", "GC.heap_info", "Thread.print");
    Matcher used = Pattern.compile("total \\d+K, used (\\d+)K").matcher(jcmd);
    long heap = used.find() ? Long.parseLong(used.group(1)) : -1;
    int threads = 0;
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith("Threads:")) {
        threads = Integer.parseInt(line.substring(8).strip());
      }
    }
    int fds = 0;
    int packs = 0;
    try (Stream<Path> s = Files.list(Path.of("/proc/" + pid + "/fd"))) {
      for (Path fd : s.toList()) {
        fds++;
        try {
          if (Files.readSymbolicLink(fd).toString().endsWith(".pack")) {
            packs++;
          }
        } catch (java.io.IOException e) {
          // closed while listing
        }
      }
    }
    Map<String, Integer> byName = new TreeMap<>();
    for (String line : jcmd.split("\n")) {
      if (line.startsWith("\"")) {
        String name = line.substring(1, line.indexOf('"', 1));
        // pushgate-http-42, pushgate-forge-7 and pushgate-control-3 are pool threads;
        // acceptors and selectors are not.
        String group = name.matches("pushgate-(http|forge|control)-\\d+")
            ? name.substring(0, name.lastIndexOf('-')) : name.replaceAll("\\d+", "N");
        byName.merge(group, 1, Integer::sum);
      }
    }
    return new Usage(threads, byName, fds, packs, heap);
  }

  /** The commands' output, one after another ({@code jcmd PID -f FILE}). */
  private static String jcmd(long pid, String... commands) throws Exception {
    Path file = Files.createTempFile("pushgate-jcmd-", ".txt");
    Files.write(file, List.of(commands));
    try {
      Process p = new ProcessBuilder("jcmd", String.valueOf(pid), "-f", file.toString())
          .redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes());
      p.waitFor(60, TimeUnit.SECONDS);
      return out;
    } finally {
      Files.delete(file);
    }
  }
}
