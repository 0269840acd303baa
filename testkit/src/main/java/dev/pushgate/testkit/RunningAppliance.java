package dev.pushgate.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The appliance jar started as a process on a data directory, as a person starts it: {@code java
 * [jvm options] -jar pushgate.jar serve --data-dir D --port P [serve options]}. Started when its
 * startup line is logged and {@code /healthz} answers 200.
 */
public final class RunningAppliance implements AutoCloseable {
  private static final Pattern GATEWAY_LINE =
      Pattern.compile("pushgate gateway at (http://127\\.0\\.0\\.1:(\\d+)/git/[^/\\s]+/)");
  private static final HttpClient HTTP =
      HttpClient.newBuilder().proxy(HttpClient.Builder.NO_PROXY).build();
  /** A bound on a broken start-up, far above a start on a loaded machine. */
  private static final Duration START_DEADLINE = Duration.ofSeconds(120);
  /** The poll of a start-up: fine enough for the bench's start-up time. */
  private static final Duration START_POLL = Duration.ofMillis(5);

  /** How to start one: the jar, the JVM's options, serve's options and where the log goes. */
  public static final class Builder {
    private final Path dataDir;
    private Path jar;
    private List<String> jvm = List.of("-Xmx512m");
    private List<String> serve = List.of();
    private Path log;
    private Map<String, String> env = Map.of();
    private boolean denyLayer = true;

    private Builder(Path dataDir) {
      this.dataDir = dataDir;
    }

    /** The jar to run (default {@link RunningAppliance#jar()}). */
    public Builder jar(Path jar) {
      this.jar = jar;
      return this;
    }

    /** The JVM's options, in place of the default {@code -Xmx512m}. */
    public Builder jvm(List<String> options) {
      this.jvm = List.copyOf(options);
      return this;
    }

    /** Options of {@code serve} after {@code --data-dir} and {@code --port}. */
    public Builder serve(List<String> options) {
      this.serve = List.copyOf(options);
      return this;
    }

    /**
     * The log file, appended to across restarts (default: a new file beside the data directory,
     * so that it goes with the test's temporary directory).
     */
    public Builder log(Path file) {
      this.log = file;
      return this;
    }

    /** Variables set in the appliance's environment on top of this process's (HOME, say). */
    public Builder env(Map<String, String> variables) {
      this.env = Map.copyOf(variables);
      return this;
    }

    /**
     * Starts the appliance without the name-deny layer, as on a host lacking pushgate-denyfs: for
     * the tests of the refusal that host gets.
     */
    public Builder withoutDenyLayer() {
      this.denyLayer = false;
      return this;
    }

    public RunningAppliance start() throws Exception {
      Path logFile = log != null ? log : newLogBeside(dataDir);
      List<String> jvmOptions = new ArrayList<>(jvm);
      if (denyLayer) {
        denyfs().ifPresent(d -> jvmOptions.add("-Dpushgate.denyfs=" + d.toAbsolutePath()));
      } else {
        jvmOptions.add("-Dpushgate.denyfs="); // none, not even the one beside the jar
      }
      RunningAppliance a = new RunningAppliance(jar != null ? jar : RunningAppliance.jar(), dataDir,
          logFile, List.copyOf(jvmOptions), serve, env);
      a.launch(0);
      return a;
    }

    /**
     * A new log file in the data directory's parent, the test's temporary directory, so that it
     * goes with it (in the system's temporary directory every test run left its appliances' logs
     * behind); there only when that parent does not exist yet.
     */
    private static Path newLogBeside(Path dataDir) throws IOException {
      Path parent = dataDir.toAbsolutePath().getParent();
      return parent != null && Files.isDirectory(parent)
          ? Files.createTempFile(parent, dataDir.getFileName() + "-", ".log")
          : Files.createTempFile("pushgate-it", ".log");
    }
  }

  public final Path jar;
  public final Path dataDir;
  public final Path log;
  private final List<String> jvm;
  private final List<String> serve;
  private final Map<String, String> env;
  private Process process;
  private int port;
  private String gatewayUrl;
  private long startupNanos;
  private ControlClient control;

  private RunningAppliance(Path jar, Path dataDir, Path log, List<String> jvm, List<String> serve,
      Map<String, String> env) {
    this.env = env;
    this.jar = jar;
    this.dataDir = dataDir;
    this.log = log;
    this.jvm = jvm;
    this.serve = serve;
  }

  public static Builder on(Path dataDir) {
    return new Builder(dataDir);
  }

  /** Starts the jar under test on {@code dataDir} with these {@code serve} options. */
  public static RunningAppliance start(Path dataDir, String... serveOptions) throws Exception {
    return on(dataDir).serve(List.of(serveOptions)).start();
  }

  /**
   * Starts the jar under test on {@code root/data} for tests whose runs are sandboxed: {@code root}
   * is made passable (not readable) for the sandbox's own user, which works in directories below
   * it.
   */
  public static RunningAppliance startForSandboxedRuns(Path root) throws Exception {
    Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwx--x--x"));
    return start(root.resolve("data"));
  }

  /** The jar under test: {@code -Dpushgate.jar}, or the appliance module's build. */
  public static Path jar() {
    Path jar = Path.of(System.getProperty("pushgate.jar", "../appliance/target/pushgate.jar"));
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("build the appliance first: " + jar + " is missing");
    }
    return jar;
  }

  /**
   * The name-deny layer's daemon built by sandbox-bridge ({@code -Dpushgate.denyfs} overrides), as
   * bin/pushgate passes it; empty when it was not built (no libfuse3-dev). Under {@code CI=true}
   * it must be there: .ci/run installs libfuse3-dev, and a CI run silently testing only the
   * refusal would hide a broken build of the layer.
   */
  public static Optional<Path> denyfs() {
    Path daemon = Path.of(System.getProperty("pushgate.denyfs",
        "../sandbox-bridge/target/native/pushgate-denyfs"));
    if (Files.isExecutable(daemon)) {
      return Optional.of(daemon);
    }
    if ("true".equals(System.getenv("CI"))) {
      throw new IllegalStateException("CI=true but the name-deny layer's daemon " + daemon
          + " is missing: install gcc and libfuse3-dev (.ci/run does) and build sandbox-bridge");
    }
    return Optional.empty();
  }

  /** Skips the calling test where the name-deny layer's daemon was not built ({@link #denyfs}). */
  public static void assumeDenyfs() {
    org.junit.jupiter.api.Assumptions.assumeTrue(denyfs().isPresent(),
        "pushgate-denyfs is not built here (no libfuse3-dev)");
  }

  /** Runs a one-shot CLI command of the jar under test; fails on a non-zero exit. */
  public static String cli(String... args) throws Exception {
    return cli(jar(), args);
  }

  /** Runs a one-shot CLI command of {@code jar} and returns its output; fails on a non-zero exit. */
  public static String cli(Path jar, String... args) throws Exception {
    return Cli.of(jar, args).ok();
  }

  /** A run's environment for git, from the control API's answer: its git config and token. */
  public static Map<String, String> runEnv(JsonNode run) {
    return Map.of(
        "GIT_CONFIG_GLOBAL", run.get("env").get("GIT_CONFIG_GLOBAL").asText(),
        "GH_TOKEN", run.get("env").get("GH_TOKEN").asText());
  }

  public void forgeCreate(String repo) throws Exception {
    cli(jar, "forge", "create", repo, "--data-dir", dataDir.toString());
  }

  /** {@code pushgate forge create} for each repository, two at a time. */
  public void forgeCreate(List<String> repos) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<String>> done = new ArrayList<>();
      for (String repo : repos) {
        done.add(pool.submit(() -> cli(jar, "forge", "create", repo, "--data-dir",
            dataDir.toString())));
      }
      for (Future<String> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
  }

  private void launch(int wantedPort) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("java"));
    cmd.addAll(jvm);
    cmd.addAll(List.of("-jar", jar.toString(), "serve", "--data-dir", dataDir.toString(),
        "--port", String.valueOf(wantedPort)));
    cmd.addAll(serve);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().keySet().removeIf(k -> k.startsWith("JAVA_TOOL_OPTIONS")
        || k.equals("JDK_JAVA_OPTIONS") || k.equals("_JAVA_OPTIONS"));
    pb.environment().putAll(env);
    // the log is appended to across restarts: only what follows is this start's
    int logStart = logText().length();
    long start = System.nanoTime();
    process = pb.start();
    Wait startup = Wait.atMost(START_DEADLINE, START_POLL);
    try {
      Matcher m = Wait.forPresent(START_DEADLINE, "the appliance's startup line", () -> {
        if (!process.isAlive()) {
          throw new AssertionError("the appliance exited");
        }
        Matcher found = GATEWAY_LINE.matcher(logText().substring(logStart));
        return found.find() ? Optional.of(found) : Optional.empty();
      });
      gatewayUrl = m.group(1);
      port = Integer.parseInt(m.group(2));
      startup.until("/healthz to answer 200", () -> healthz() == 200);
    } catch (AssertionError e) {
      process.destroyForcibly();
      throw new AssertionError(e.getMessage() + "\n" + logText(), e);
    }
    startupNanos = System.nanoTime() - start;
    control = new ControlClient(dataDir.resolve("control.sock"));
  }

  public int port() {
    return port;
  }

  /** The process id of the running appliance, for what {@code /proc} says about it. */
  public long pid() {
    return process.pid();
  }

  /** From just before the process was spawned to {@code /healthz} answering 200. */
  public long startupNanos() {
    return startupNanos;
  }

  public String base() {
    return "http://127.0.0.1:" + port;
  }

  public String gatewayUrl() {
    return gatewayUrl;
  }

  /** The local forge's smart-HTTP URL of a repository. */
  public String forgeUrl(String repo) {
    return base() + "/forge/" + repo + ".git";
  }

  public Path forgeRepo(String repo) {
    return dataDir.resolve("forge").resolve(repo + ".git");
  }

  /** The gateway's cache of an upstream repository. */
  public Path cacheRepo(String repo) {
    return dataDir.resolve("cache").resolve(repo + ".git");
  }

  public ControlClient control() {
    return control;
  }

  /** Creates a run and returns the control API's answer; fails unless it is 201. */
  public JsonNode createRun(String json) throws Exception {
    ControlClient.Answer a = control.post("/v1/runs", json);
    if (a.status() != 201) {
      throw new AssertionError("POST /v1/runs answered " + a.status() + ": " + a.raw());
    }
    return a.body();
  }

  /** The status {@code /healthz} answers, or -1 when it does not. */
  public int healthz() {
    try {
      HttpResponse<Void> r = HTTP.send(
          HttpRequest.newBuilder(URI.create(base() + "/healthz"))
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

  public String logText() throws IOException {
    return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
  }

  /** The exit status of a process that has ended ({@link #close} waits for it). */
  public int exitValue() {
    return process.exitValue();
  }

  /** Kills the process without letting it clean up, as a crash would. */
  public void kill9() throws Exception {
    closeControl();
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  /** Starts again on the same data directory and port. */
  public void restart() throws Exception {
    int old = port;
    gatewayUrl = null;
    launch(old);
  }

  private void closeControl() throws Exception {
    if (control != null) {
      control.close();
      control = null;
    }
  }

  /** Stops the process as a person does (SIGTERM: shutdown hooks run, JFR dumps its recording). */
  @Override
  public void close() throws Exception {
    try {
      closeControl();
    } finally {
      if (process != null && process.isAlive()) {
        process.destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
          process.destroyForcibly();
          process.waitFor(30, TimeUnit.SECONDS);
        }
      }
    }
  }
}
