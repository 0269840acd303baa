package dev.pushgate.it;

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
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The appliance jar started as a process on a temporary data directory, as a person starts it. */
final class RunningAppliance implements AutoCloseable {
  private static final Pattern GATEWAY_LINE =
      Pattern.compile("pushgate gateway at (http://127\\.0\\.0\\.1:(\\d+)/git/[^/\\s]+/)");

  final Path dataDir;
  final Path log;
  private final List<String> extraArgs;
  private Process process;
  private int port;
  private String gatewayUrl;
  private ControlClient control;

  private RunningAppliance(Path dataDir, List<String> extraArgs) throws IOException {
    this.dataDir = dataDir;
    this.extraArgs = List.copyOf(extraArgs);
    this.log = Files.createTempFile("pushgate-it", ".log");
  }

  static RunningAppliance start(Path dataDir, String... extraArgs) throws Exception {
    RunningAppliance a = new RunningAppliance(dataDir, List.of(extraArgs));
    a.launch(0);
    return a;
  }

  static Path jar() {
    Path jar = Path.of(System.getProperty("pushgate.jar", "../appliance/target/pushgate.jar"));
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("build the appliance first: " + jar + " is missing");
    }
    return jar;
  }

  /** Runs a one-shot CLI command of the jar and returns its output; fails on a non-zero exit. */
  static String cli(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("java", "-jar", jar().toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new AssertionError("pushgate " + String.join(" ", args) + " failed:\n" + out);
    }
    return out;
  }

  void forgeCreate(String repo) throws Exception {
    cli("forge", "create", repo, "--data-dir", dataDir.toString());
  }

  private void launch(int wantedPort) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("java", "-Xmx512m", "-jar", jar().toString(),
        "serve", "--data-dir", dataDir.toString(), "--port", String.valueOf(wantedPort)));
    cmd.addAll(extraArgs);
    process = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (gatewayUrl == null) {
      if (!process.isAlive()) {
        throw new AssertionError("the appliance exited:\n" + logText());
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the appliance did not start in 60 s:\n" + logText());
      }
      Matcher m = GATEWAY_LINE.matcher(logText());
      if (m.find()) {
        gatewayUrl = m.group(1);
        port = Integer.parseInt(m.group(2));
      } else {
        Thread.sleep(50);
      }
    }
    while (healthz() != 200) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("/healthz never answered 200:\n" + logText());
      }
      Thread.sleep(50);
    }
    control = new ControlClient(dataDir.resolve("control.sock"));
  }

  int port() {
    return port;
  }

  /** The process id of the running appliance, for what {@code /proc} says about it. */
  long pid() {
    return process.pid();
  }

  String gatewayUrl() {
    return gatewayUrl;
  }

  String forgeUrl(String repo) {
    return "http://127.0.0.1:" + port + "/forge/" + repo + ".git";
  }

  Path forgeRepo(String repo) {
    return dataDir.resolve("forge").resolve(repo + ".git");
  }

  ControlClient control() {
    return control;
  }

  /** Creates a run and returns the control API's answer; fails unless it is 201. */
  JsonNode createRun(String json) throws Exception {
    ControlClient.Answer a = control.post("/v1/runs", json);
    if (a.status() != 201) {
      throw new AssertionError("POST /v1/runs answered " + a.status() + ": " + a.raw());
    }
    return a.body();
  }

  int healthz() {
    try {
      HttpResponse<String> r = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/healthz"))
              .timeout(Duration.ofSeconds(5)).build(),
          HttpResponse.BodyHandlers.ofString());
      return r.statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  String logText() throws IOException {
    return Files.readString(log, StandardCharsets.UTF_8);
  }

  /** Kills the process without letting it clean up, as a crash would. */
  void kill9() throws Exception {
    closeControl();
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  /** Starts again on the same data directory and port. */
  void restart() throws Exception {
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

  @Override
  public void close() throws Exception {
    closeControl();
    if (process != null && process.isAlive()) {
      process.destroy();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
  }
}
