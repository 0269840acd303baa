package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.RunningAppliance;
import dev.pushgate.testkit.Wait;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An idle run costs the appliance no thread and no descriptor: fifty runs created with
 * {@code POST /v1/runs} (by hand: each with its API boundary and its proxy login) leave the
 * process's threads and open files where one run left them. Each run had its own TLS listener
 * and its own proxy before (two threads and three descriptors a run, docs/benchmarks.md).
 */
class IdleRunsTest {
  private static final int RUNS = 50;
  /** What the appliance's own pools may grow by while it answers fifty requests in a row. */
  private static final int SLACK = 12;

  @TempDir Path tmp;

  @Test
  void fiftyIdleRunsCostNoThreadAndNoDescriptor() throws Exception {
    try (RunningAppliance app = RunningAppliance.start(tmp.resolve("data"))) {
      app.forgeCreate("acme/widget");
      // The first run starts what every run shares: the boundary's listener, the shared proxy.
      JsonNode first = app.createRun(run(0));
      assertThat(first.path("env").path("HTTPS_PROXY").asText()).startsWith("http://");
      long pid = app.pid();
      int threads = threads(pid);
      long files = files(pid);
      for (int i = 1; i <= RUNS; i++) {
        app.createRun(run(i));
      }
      assertThat(app.control().get("/v1/runs").body().path("runs").size())
          .isGreaterThanOrEqualTo(RUNS + 1);
      Wait.until(Duration.ofSeconds(60), "the appliance's threads to stay within " + SLACK
          + " of " + threads + " with " + (RUNS + 1) + " runs live",
          () -> threads(pid) <= threads + SLACK);
      Wait.until(Duration.ofSeconds(60), "the appliance's open files to stay within " + SLACK
          + " of " + files + " with " + (RUNS + 1) + " runs live",
          () -> files(pid) <= files + SLACK);
    }
  }

  private static String run(int i) {
    return "{\"workspaceId\": \"ws-" + i + "\", \"mode\": \"chat\", \"repository\": "
        + "\"acme/widget\", \"rules\": {\"push\": \"allow\"}}";
  }

  static int threads(long pid) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith("Threads:")) {
        return Integer.parseInt(line.substring("Threads:".length()).trim());
      }
    }
    throw new IOException("no thread count in /proc/" + pid + "/status");
  }

  static long files(long pid) throws IOException {
    try (Stream<Path> fds = Files.list(Path.of("/proc/" + pid + "/fd"))) {
      return fds.count();
    }
  }
}
