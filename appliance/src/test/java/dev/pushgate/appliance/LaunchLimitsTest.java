package dev.pushgate.appliance;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pushgate.forge.ForgeRepositories;
import dev.pushgate.appliance.launch.Launches;
import dev.pushgate.testkit.ControlClient;
import dev.pushgate.testkit.Wait;
import dev.pushgate.types.RepoSlug;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.InputStreamResponseListener;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.io.Transport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bounds of {@code POST /v1/runs/{id}/launch} on the appliance in this JVM, sandbox off (the
 * commands run unwrapped, which is what the launch does with a {@code none} plan): at most {@link
 * Launches#DEFAULT_MAX} commands at once, every launched command ends with the appliance, and a
 * run resumed after a restart has no plan to launch under.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class LaunchLimitsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration WITHIN = Duration.ofSeconds(30);

  @TempDir Path tmp;

  @Test
  void atMostSixteenCommandsRunAtOnceAndAllEndWithTheAppliance() throws Exception {
    Path data = tmp.resolve("data");
    List<Long> pids = new ArrayList<>();
    HttpClient http = new HttpClient();
    http.start();
    try (TestAppliance a = TestAppliance.start(data, null)) {
      new ForgeRepositories(data.resolve("forge")).create(RepoSlug.parse("acme/widget"));
      try (ControlClient control = new ControlClient(data.resolve("control.sock"))) {
        List<String> runs = new ArrayList<>();
        for (int i = 0; i <= Launches.DEFAULT_MAX; i++) {
          runs.add(createRun(control, Files.createDirectories(tmp.resolve("work-" + i))));
        }
        for (int i = 0; i < Launches.DEFAULT_MAX; i++) {
          BufferedReader lines = launch(http, data, runs.get(i), "sleep", "600");
          JsonNode started = JSON.readTree(lines.readLine());
          assertThat(started.get("type").asText()).isEqualTo("started");
          assertThat(started.get("backend").asText()).isEqualTo("none");
          pids.add(started.get("pid").asLong());
        }

        String last = runs.get(Launches.DEFAULT_MAX);
        ControlClient.Answer refused = control.post("/v1/runs/" + last + "/launch",
            "{\"command\": [\"echo\", \"seventeenth\"]}");
        assertThat(refused.status()).isEqualTo(429);
        assertThat(refused.body().get("error").asText()).isEqualTo(
            "16 launched commands already run on this appliance, the most it runs at once");

        // A run's end frees its place.
        assertThat(control.delete("/v1/runs/" + runs.get(0)).status()).isEqualTo(200);
        assertThat(alive(pids.get(0))).isFalse();
        ControlClient.Answer now = Wait.forValue(WITHIN, "a place for the last launch",
            () -> control.post("/v1/runs/" + last + "/launch",
                "{\"command\": [\"echo\", \"seventeenth\"]}"), x -> x.status() != 429);
        assertThat(now.status()).isEqualTo(200);
        assertThat(now.raw()).contains("{\"type\":\"stdout\",\"data\":\"seventeenth\\n\"}")
            .endsWith("{\"type\":\"exit\",\"code\":0}\n");
      }
    } finally {
      http.stop();
    }
    for (long pid : pids) {
      assertThat(alive(pid)).as("pid " + pid + " after the appliance stopped").isFalse();
    }
  }

  @Test
  void aRunResumedAfterARestartHasNoPlanToLaunchUnder() throws Exception {
    Path data = tmp.resolve("data");
    String runId;
    try (TestAppliance a = TestAppliance.start(data, null)) {
      new ForgeRepositories(data.resolve("forge")).create(RepoSlug.parse("acme/widget"));
      try (ControlClient control = new ControlClient(data.resolve("control.sock"))) {
        runId = createRun(control, Files.createDirectories(tmp.resolve("work")));
      }
    }
    try (TestAppliance a = TestAppliance.start(data, null);
        ControlClient control = new ControlClient(data.resolve("control.sock"))) {
      assertThat(control.get("/v1/runs/" + runId).body().get("state").asText()).isEqualTo("live");
      ControlClient.Answer refused = control.post("/v1/runs/" + runId + "/launch",
          "{\"command\": [\"true\"]}");
      assertThat(refused.status()).isEqualTo(409);
      assertThat(refused.body().get("error").asText()).isEqualTo("run " + runId
          + " was created before the appliance last started; its plan is not kept across a"
          + " restart");
      assertThat(refused.body().get("waysOut").get(0).asText())
          .isEqualTo("tear it down (DELETE /v1/runs/" + runId + ") and create a new run");
      control.delete("/v1/runs/" + runId);
    }
  }

  @Test
  void aWorkdirSwappedForALinkAfterTheRunWasCreatedIsNotLaunchedIn() throws Exception {
    Path data = tmp.resolve("data");
    try (TestAppliance a = TestAppliance.start(data, null)) {
      new ForgeRepositories(data.resolve("forge")).create(RepoSlug.parse("acme/widget"));
      try (ControlClient control = new ControlClient(data.resolve("control.sock"))) {
        Path work = Files.createDirectories(tmp.resolve("work"));
        String workPath = work.toRealPath().toString();
        String runId = createRun(control, work);
        ControlClient.Answer first = control.post("/v1/runs/" + runId + "/launch",
            "{\"command\": [\"true\"]}");
        assertThat(first.raw()).endsWith("{\"type\":\"exit\",\"code\":0}\n");

        // Whoever can write the workdir's parent puts a link in its place: to the appliance's
        // own data directory (control socket, ledger key), or anywhere else.
        for (Path target : List.of(data, Files.createDirectories(tmp.resolve("elsewhere")))) {
          Files.delete(work);
          Files.createSymbolicLink(work, target);
          ControlClient.Answer refused = control.post("/v1/runs/" + runId + "/launch",
              "{\"command\": [\"sh\", \"-c\", \"cat ledger.key; touch planted\"]}");
          assertThat(refused.status()).as(refused.raw()).isEqualTo(422);
          assertThat(refused.body().get("error").asText()).startsWith("not launched: "
              + workPath + " now leads to "
              + target.toRealPath() + ", not to ");
          assertThat(target.resolve("planted")).doesNotExist();
          Files.delete(work);
          Files.createDirectory(work);
        }
        // put back as it was, it launches again
        assertThat(control.post("/v1/runs/" + runId + "/launch", "{\"command\": [\"true\"]}")
            .raw()).endsWith("{\"type\":\"exit\",\"code\":0}\n");
        control.delete("/v1/runs/" + runId);
      }
    }
  }

  private static String createRun(ControlClient control, Path work) throws Exception {
    ControlClient.Answer a = control.post("/v1/runs", JSON.writeValueAsString(
        JSON.createObjectNode().put("workspaceId", "ws-1").put("repository", "acme/widget")
            .put("workdir", work.toRealPath().toString()).put("runner", "harness-bash")
            .set("env", JSON.createObjectNode().put("PATH", "/usr/bin:/bin"))));
    assertThat(a.status()).as(a.raw()).isEqualTo(201);
    return a.body().get("runId").asText();
  }

  /** Starts a launch and returns its stream, left open. */
  private static BufferedReader launch(HttpClient http, Path data, String runId,
      String... command) throws Exception {
    var body = JSON.createObjectNode();
    var argv = body.putArray("command");
    for (String c : command) {
      argv.add(c);
    }
    InputStreamResponseListener listener = new InputStreamResponseListener();
    http.newRequest("http://localhost/v1/runs/" + runId + "/launch")
        .transport(new Transport.TCPUnix(data.resolve("control.sock")))
        .method(HttpMethod.POST).idleTimeout(0, TimeUnit.SECONDS)
        .body(new StringRequestContent("application/json", JSON.writeValueAsString(body)))
        .send(listener);
    assertThat(listener.get(30, TimeUnit.SECONDS).getStatus()).isEqualTo(200);
    return new BufferedReader(
        new InputStreamReader(listener.getInputStream(), StandardCharsets.UTF_8));
  }

  private static boolean alive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }
}
