package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pushgate.testkit.Wait;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The container image {@code mvn package} builds with Jib (packaging/), as a file and as a running
 * container: loaded into podman, started with a volume for its data directory, ready on
 * {@code /healthz} and {@code /readyz}, {@code config check} run in it, stopped cleanly.
 * Without podman the running part is skipped, except under {@code CI=true}, where it fails:
 * .ci/run installs podman.
 */
class ContainerImageTest {
  private static final String ENTRYPOINT_JAR = "/opt/pushgate/lib/pushgate.jar";
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;
  private final String name = "pushgate-it-" + UUID.randomUUID().toString().substring(0, 8);
  private Path storage;

  @Test
  void theImageRunsTheReleaseJarAsANonRootUserWithItsDataOnAVolume() throws Exception {
    Path image = image();
    Path unpacked = Files.createDirectories(tmp.resolve("image"));
    run("tar", "xf", image.toString(), "-C", unpacked.toString()).expectOk();
    JsonNode manifest = JSON.readTree(unpacked.resolve("manifest.json").toFile()).get(0);
    JsonNode config = JSON.readTree(unpacked.resolve(manifest.get("Config").asText()).toFile());
    JsonNode c = config.get("config");

    assertThat(strings(c.get("Entrypoint"))).containsExactly(
        "/opt/java/bin/java", "-XX:MaxRAMPercentage=50", "-jar", ENTRYPOINT_JAR);
    assertThat(strings(c.get("Cmd"))).containsExactly("serve");
    assertThat(c.get("User").asText()).isEqualTo("65532:65532");
    assertThat(strings(c.get("Env"))).contains("PUSHGATE_DATA_DIR=/data",
        "PUSHGATE_RUNTIME_DIR=/run/pushgate", "PUSHGATE_SANDBOX=off")
        // loopback stays the default: widening it is the operator's explicit choice
        .noneMatch(e -> e.startsWith("PUSHGATE_BIND=") || e.startsWith("PUSHGATE_ALLOW_NON"));
    assertThat(c.get("Volumes").has("/data")).isTrue();
    assertThat(c.path("ExposedPorts").size()).isZero();
    // Jib's reproducible defaults: no build time in the image
    assertThat(config.get("created").asText()).startsWith("1970-01-01");

    List<String> entries = new ArrayList<>();
    for (JsonNode layer : manifest.get("Layers")) {
      String listing = run("tar", "--numeric-owner", "-tvzf",
          unpacked.resolve(layer.asText()).toString()).expectOk();
      entries.addAll(listing.lines().filter(l -> !l.startsWith("tar: ")).toList());
    }
    assertThat(entries)
        .anyMatch(e -> e.endsWith(" opt/pushgate/lib/pushgate.jar") && e.startsWith("-rw-r--r-- 0/0"))
        .anyMatch(e -> e.endsWith("/opt/java/bin/java"))
        .anyMatch(e -> e.endsWith("/lib64/ld-linux-x86-64.so.2"))
        .anyMatch(e -> e.endsWith("/lib/x86_64-linux-gnu/libc.so.6"))
        // the data and runtime directories are the image user's, and only theirs
        .anyMatch(e -> e.startsWith("drwx------ 65532/65532") && e.endsWith(" ./data/"))
        .anyMatch(e -> e.startsWith("drwxr-x--- 65532/65532") && e.endsWith(" ./run/pushgate/"))
        .anyMatch(e -> e.startsWith("drwxrwxrwt 0/0") && e.endsWith(" ./tmp/"));

    // The jar in the image is the release's, byte for byte.
    Path jarLayer = null;
    for (JsonNode layer : manifest.get("Layers")) {
      Path file = unpacked.resolve(layer.asText());
      if (run("tar", "-tzf", file.toString()).expectOk().lines()
          .anyMatch(l -> l.equals("opt/pushgate/lib/pushgate.jar"))) {
        jarLayer = file;
      }
    }
    assertThat(jarLayer).as("the layer holding the jar").isNotNull();
    Path out = Files.createDirectories(tmp.resolve("jar"));
    run("tar", "xzf", jarLayer.toString(), "-C", out.toString(), "opt/pushgate/lib/pushgate.jar")
        .expectOk();
    assertThat(sha256(out.resolve("opt/pushgate/lib/pushgate.jar")))
        .isEqualTo(sha256(Path.of(System.getProperty("pushgate.jar"))));
  }

  @Test
  void theContainerStartsBecomesReadyPassesConfigCheckAndStopsCleanly() throws Exception {
    Path image = image();
    requirePodman();
    storage = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")),
        "pushgate-podman-");
    String loaded = podman("load", "-i", image.toString()).expectOk();
    String ref = "localhost/pushgate:" + System.getProperty("pushgate.version");
    assertThat(loaded).contains(ref);

    int port = freeLoopbackPort();
    podman("run", "-d", "--name", name, "--network=host",
        // podman's default open-files limit is above what hosts without CAP_SYS_RESOURCE
        // (this CI machine) may set
        "--ulimit", "nofile=4096:4096", "--ulimit", "nproc=4096:4096",
        "-v", name + ":/data", "-e", "PUSHGATE_PORT=" + port, ref).expectOk();

    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    String base = "http://127.0.0.1:" + port;
    try {
      Wait.until(Duration.ofSeconds(180), "the container's /healthz to answer 200",
          () -> status(http, base + "/healthz") == 200);
      Wait.until(Duration.ofSeconds(60), "the container's /readyz to answer 200",
          () -> status(http, base + "/readyz") == 200);
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\ncontainer log:\n"
          + podman("logs", name).output(), e);
    }
    HttpResponse<String> ready = http.send(HttpRequest.newBuilder(URI.create(base + "/readyz"))
        .build(), HttpResponse.BodyHandlers.ofString());
    assertThat(ready.body()).contains("\"status\":\"ready\"");

    String check = podman("exec", name, "/opt/java/bin/java", "-jar", ENTRYPOINT_JAR,
        "config", "check").expectOk();
    assertThat(check).containsPattern("data-dir: +/data")
        .containsPattern("sandbox: +off +# env")
        .containsPattern("bind: +127\\.0\\.0\\.1 +# default")
        .containsPattern("port: +" + port + " +# env")
        .contains("# ok");
    String log = podman("logs", name).output();
    assertThat(log).contains("pushgate control API on /data/control.sock",
        "agent sandbox DISABLED by PUSHGATE_SANDBOX=off")
        // the image sets PUSHGATE_SANDBOX, not the flag: no line may say the flag did it
        .doesNotContain("by --sandbox off");

    podman("stop", "-t", "60", name).expectOk();
    // SIGTERM: held pushes refused, the audit flushed, then the JVM's 143
    assertThat(podman("inspect", "--format", "{{.State.ExitCode}}", name).expectOk().strip())
        .isEqualTo("143");
    // what the appliance wrote stays on the volume, as the image's user's
    String volume = podman("volume", "inspect", "--format", "{{.Mountpoint}}", name).expectOk()
        .strip();
    assertThat(Path.of(volume, "pushgate.db")).isRegularFile();
    assertThat(Files.getAttribute(Path.of(volume), "unix:uid")).isEqualTo(65532);
  }

  @AfterEach
  void removeContainerAndStorage() throws Exception {
    if (storage == null) {
      return;
    }
    podman("rm", "-f", name);
    podman("volume", "rm", "-f", name);
    // the storage holds files of the image's user and root: rm, not a Java walk
    run("rm", "-rf", storage.toString()).expectOk();
  }

  private static Path image() {
    Path image = Path.of(System.getProperty("pushgate.image"));
    assertThat(image).as("the image mvn package builds in packaging/").isRegularFile()
        .hasFileName("pushgate-image-" + System.getProperty("pushgate.version") + ".tar");
    return image;
  }

  private static void requirePodman() throws Exception {
    boolean present;
    try {
      present = run("podman", "--version").exit() == 0;
    } catch (IOException e) {
      present = false;
    }
    if (!present) {
      if ("true".equals(System.getenv("CI"))) {
        fail("podman is not installed under CI=true: .ci/run installs it (apt-get install podman"
            + " runc)");
      }
      assumeTrue(false, "podman is not installed; the container is not started");
    }
  }

  /**
   * podman with storage of this test's own (nothing of the host's images or containers is
   * touched) and what runs on a host without systemd: the vfs driver, cgroupfs, events in a file.
   * runc when installed: crun refuses a host whose cgroups are mounted hybrid, as this CI
   * machine's are.
   */
  private Result podman(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("podman",
        "--root", storage.resolve("root").toString(),
        "--runroot", storage.resolve("runroot").toString(),
        "--storage-driver=vfs", "--cgroup-manager=cgroupfs", "--events-backend=file"));
    for (String runc : List.of("/usr/sbin/runc", "/usr/bin/runc")) {
      if (Files.isExecutable(Path.of(runc))) {
        cmd.addAll(List.of("--runtime", runc));
        break;
      }
    }
    cmd.addAll(List.of(args));
    return run(cmd.toArray(String[]::new));
  }

  private static int status(HttpClient http, String url) throws InterruptedException {
    try {
      return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5))
          .build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException notYet) {
      return -1;
    }
  }

  private static int freeLoopbackPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static List<String> strings(JsonNode array) {
    return StreamSupport.stream(array.spliterator(), false).map(JsonNode::asText)
        .collect(Collectors.toList());
  }

  private static String sha256(Path file) throws Exception {
    MessageDigest md = MessageDigest.getInstance("SHA-256");
    try (InputStream in = Files.newInputStream(file)) {
      byte[] buf = new byte[1 << 16];
      for (int n; (n = in.read(buf)) > 0; ) {
        md.update(buf, 0, n);
      }
    }
    return HexFormat.of().formatHex(md.digest());
  }

  private record Result(int exit, String output, List<String> command) {
    String expectOk() {
      assertThat(exit).as(String.join(" ", command) + " exits 0; output:\n" + output).isZero();
      return output;
    }
  }

  private static Result run(String... command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(300, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError(String.join(" ", command) + " did not finish:\n" + out);
    }
    return new Result(p.exitValue(), out, List.of(command));
  }
}
