package dev.pushgate.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The appliance jar started as a process on a data directory, as a person (and the e2e tests'
 * {@code RunningAppliance}) starts it: {@code java [jvm options] -jar pushgate.jar serve
 * --data-dir D --port 0}.
 */
final class ApplianceProcess implements AutoCloseable {
  private static final Pattern GATEWAY_LINE =
      Pattern.compile("pushgate gateway at (http://127\\.0\\.0\\.1:(\\d+)/git/github\\.com/)");
  private static final HttpClient HTTP =
      HttpClient.newBuilder().proxy(HttpClient.Builder.NO_PROXY).build();

  final Path jar;
  final Path dataDir;
  final Path log;
  private final Process process;
  private final long startupNanos;
  private final int port;
  private final ControlClient control;

  private ApplianceProcess(Path jar, Path dataDir, Path log, Process process, long startupNanos,
      int port) throws Exception {
    this.jar = jar;
    this.dataDir = dataDir;
    this.log = log;
    this.process = process;
    this.startupNanos = startupNanos;
    this.port = port;
    this.control = new ControlClient(dataDir.resolve("control.sock"));
  }

  /**
   * Starts the jar and waits for {@code /healthz} to answer 200; the start-up time is measured
   * from just before the process is spawned to that answer.
   */
  static ApplianceProcess start(Path jar, Path dataDir, List<String> jvmOptions) throws Exception {
    Files.createDirectories(dataDir.getParent());
    Path log = dataDir.resolveSibling(dataDir.getFileName() + ".log");
    List<String> cmd = new ArrayList<>(List.of("java"));
    cmd.addAll(jvmOptions);
    // One run pushes hundreds of times a minute here, far past what one agent may.
    cmd.addAll(List.of("-jar", jar.toString(), "serve", "--data-dir", dataDir.toString(),
        "--port", "0", "--max-write-tokens-per-minute", "1000000"));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().keySet().removeIf(k -> k.startsWith("JAVA_TOOL_OPTIONS")
        || k.equals("JDK_JAVA_OPTIONS") || k.equals("_JAVA_OPTIONS"));
    // the log is appended to across restarts on one data directory: read only what follows
    int logStart = Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8).length() : 0;
    long start = System.nanoTime();
    Process process = pb.start();
    long deadline = start + TimeUnit.SECONDS.toNanos(60);
    int port = -1;
    while (port < 0) {
      if (!process.isAlive()) {
        throw new IllegalStateException("the appliance exited:\n" + Files.readString(log));
      }
      if (System.nanoTime() > deadline) {
        process.destroyForcibly();
        throw new IllegalStateException("the appliance did not start in 60 s:\n"
            + Files.readString(log));
      }
      Matcher m = GATEWAY_LINE.matcher(
          Files.readString(log, StandardCharsets.UTF_8).substring(logStart));
      if (m.find()) {
        port = Integer.parseInt(m.group(2));
      } else {
        Thread.sleep(5);
      }
    }
    while (healthz(port) != 200) {
      if (System.nanoTime() > deadline) {
        process.destroyForcibly();
        throw new IllegalStateException("/healthz never answered 200:\n" + Files.readString(log));
      }
      Thread.sleep(5);
    }
    long startup = System.nanoTime() - start;
    return new ApplianceProcess(jar, dataDir, log, process, startup, port);
  }

  static int healthz(int port) {
    try {
      HttpResponse<Void> r = HTTP.send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/healthz"))
              .timeout(Duration.ofSeconds(5)).build(),
          HttpResponse.BodyHandlers.discarding());
      return r.statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  long startupNanos() {
    return startupNanos;
  }

  long pid() {
    return process.pid();
  }

  int port() {
    return port;
  }

  String base() {
    return "http://127.0.0.1:" + port;
  }

  /** The local forge's smart-HTTP URL of a repository: the direct baseline's remote. */
  String forgeUrl(String repo) {
    return base() + "/forge/" + repo + ".git";
  }

  Path forgeDir(String repo) {
    return dataDir.resolve("forge").resolve(repo + ".git");
  }

  Path cacheDir(String repo) {
    return dataDir.resolve("cache").resolve(repo + ".git");
  }

  ControlClient control() {
    return control;
  }

  /** {@code pushgate forge create} for each repository, two at a time (setup, not measured). */
  void forgeCreate(List<String> repos) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<String>> done = new ArrayList<>();
      for (String repo : repos) {
        done.add(pool.submit(() -> cli("forge", "create", repo, "--data-dir", dataDir.toString())));
      }
      for (Future<String> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
  }

  /** Runs a one-shot CLI command of the jar (setup only, so with a quick-starting JVM). */
  String cli(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("java", "-XX:TieredStopAtLevel=1",
        "-XX:+UseSerialGC", "-jar", jar.toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException("pushgate " + String.join(" ", args) + " failed:\n" + out);
    }
    return out;
  }

  /** Starts a run and returns the control API's answer; fails unless it is 201. */
  JsonNode createRun(String json) throws Exception {
    ControlClient.Answer a = control.post("/v1/runs", json);
    if (a.status() != 201) {
      throw new IllegalStateException("POST /v1/runs answered " + a.status() + ": " + a.raw());
    }
    return a.body();
  }

  /** A run's environment for git: its git config and its read token. */
  static java.util.Map<String, String> runEnv(JsonNode run) {
    return java.util.Map.of(
        "GIT_CONFIG_GLOBAL", run.get("env").get("GIT_CONFIG_GLOBAL").asText(),
        "GH_TOKEN", run.get("env").get("GH_TOKEN").asText());
  }

  /** A field of {@code /proc/PID/status} in kB (VmRSS, VmHWM), or -1. */
  long statusKb(String field) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid()), "status"))) {
        if (line.startsWith(field + ":")) {
          return Long.parseLong(line.substring(field.length() + 1).replace("kB", "").strip());
        }
      }
    } catch (IOException | NumberFormatException e) {
      return -1;
    }
    return -1;
  }

  /** Resets the peak RSS ({@code VmHWM}) to the current RSS; false where the kernel refuses. */
  boolean resetPeakRss() {
    try {
      Files.writeString(Path.of("/proc", String.valueOf(pid()), "clear_refs"), "5");
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** CPU time (user + system) the appliance process has used so far, in nanoseconds. */
  long cpuNanos() {
    try {
      String stat = Files.readString(Path.of("/proc", String.valueOf(pid()), "stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      // after the command name: state(0) ... utime(11) stime(12), in clock ticks
      long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
      return ticks * (1_000_000_000L / Platform.clockTicksPerSecond());
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /**
   * CPU ticks (user + system) per kind of thread of the appliance, from {@code
   * /proc/PID/task/&#42;/stat}: thread names with their numbers taken out ("pushgate-http-12" and
   * "pushgate-http-3" are one kind), as the kernel keeps them (15 characters).
   */
  java.util.Map<String, Long> threadTicks() {
    java.util.Map<String, Long> out = new java.util.TreeMap<>();
    try (var tasks = Files.list(Path.of("/proc", String.valueOf(pid()), "task"))) {
      for (Path t : tasks.toList()) {
        try {
          String stat = Files.readString(t.resolve("stat"));
          String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
              .replaceAll("[0-9]+", "N");
          String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          out.merge(name, Long.parseLong(f[11]) + Long.parseLong(f[12]), Long::sum);
        } catch (IOException | RuntimeException e) {
          // the thread ended meanwhile
        }
      }
    } catch (IOException e) {
      return out;
    }
    return out;
  }

  /** {@code jcmd PID GC.heap_info}: heap used and committed, in kB ({-1,-1} when unavailable). */
  long[] heapInfoKb() {
    String out = Platform.run(List.of("jcmd", String.valueOf(pid()), "GC.heap_info"));
    Matcher m = Pattern.compile("total (\\d+)K, used (\\d+)K").matcher(out);
    return m.find() ? new long[] {Long.parseLong(m.group(2)), Long.parseLong(m.group(1))}
        : new long[] {-1, -1};
  }

  String logText() throws IOException {
    return Files.readString(log, StandardCharsets.UTF_8);
  }

  @Override
  public void close() throws Exception {
    try {
      control.close();
    } finally {
      if (process.isAlive()) {
        process.destroy(); // SIGTERM: the shutdown hook runs, and JFR dumps its recording
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
          process.destroyForcibly();
          process.waitFor(30, TimeUnit.SECONDS);
        }
      }
    }
  }
}
