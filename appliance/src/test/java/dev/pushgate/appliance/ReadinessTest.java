package dev.pushgate.appliance;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.pushgate.broker.GitHubAppConfig;
import dev.pushgate.testkit.Wait;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code /readyz} of the real appliance: ready, then not while a dependency fails, then again. */
class ReadinessTest {
  private static final Duration WITHIN = Duration.ofSeconds(20);

  @TempDir Path tmp;

  @Test
  void aFreshApplianceIsReadyAndNotWhileItsDatabaseFileIsGone() throws Exception {
    Path data = tmp.resolve("data");
    try (TestAppliance a = TestAppliance.start(data, null)) {
      awaitStatus(a, 200);
      // The microvm note says what the probe found (TestAppliance names no guest) and is no check.
      assertThat(a.get("/readyz").body()).startsWith(
          "{\"status\":\"ready\",\"microvm\":\"microvm unavailable: ");
      assertThat(a.get("/healthz").statusCode()).isEqualTo(200);

      Path db = data.resolve("pushgate.db");
      Path aside = tmp.resolve("aside.db");
      Files.move(db, aside);
      HttpResponse<String> down = awaitStatus(a, 503);
      assertThat(down.body()).contains("\"status\":\"not ready\"")
          .contains("{\"check\":\"database\",\"reason\":\"the database file " + db + " is gone\"}")
          .doesNotContain("github-app").doesNotContain("\"check\":\"sandbox\"");
      assertThat(a.get("/healthz").statusCode()).as("liveness is not readiness").isEqualTo(200);

      Files.move(aside, db);
      awaitStatus(a, 200);
    }
  }

  @Test
  void notReadyWhileTheAppApiFailsAndReadyOnceItAnswers() throws Exception {
    AtomicInteger status = new AtomicInteger(200);
    HttpServer api = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    api.createContext("/app", x -> {
      byte[] body = "{\"id\":1,\"slug\":\"fake\",\"name\":\"fake\"}"
          .getBytes(StandardCharsets.UTF_8);
      x.sendResponseHeaders(status.get(), body.length);
      x.getResponseBody().write(body);
      x.close();
    });
    api.start();
    try (TestAppliance a = TestAppliance.start(tmp.resolve("data"), app(api))) {
      awaitStatus(a, 200);

      status.set(503);
      HttpResponse<String> down = awaitStatus(a, 503);
      assertThat(down.body()).contains("{\"check\":\"github-app\",\"reason\":\"the App API at http://127.0.0.1:")
          .doesNotContain("BEGIN").doesNotContain("Bearer").doesNotContain("\"database\"");

      status.set(200);
      awaitStatus(a, 200);
    } finally {
      api.stop(0);
    }
  }

  /**
   * Issue 32: the start does not end (and serve does not say "pushgate ready") before the App
   * API's first answer, so /readyz agrees from the first request; a slow App API (here one that
   * takes two seconds, as a far GitHub may) no longer leaves "github-app: not checked yet".
   */
  @Test
  void readyzAgreesWithTheStartTheMomentItReturns() throws Exception {
    // The fake App API holds its first answer until the test has seen the start still waiting
    // for it, as a distant one would: events, not a fixed pause.
    CountDownLatch asked = new CountDownLatch(1);
    CountDownLatch answer = new CountDownLatch(1);
    HttpServer api = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    api.createContext("/app", x -> {
      asked.countDown();
      try {
        answer.await(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      byte[] body = "{\"id\":1,\"slug\":\"fake\",\"name\":\"fake\"}"
          .getBytes(StandardCharsets.UTF_8);
      x.sendResponseHeaders(200, body.length);
      x.getResponseBody().write(body);
      x.close();
    });
    api.setExecutor(Executors.newCachedThreadPool());
    api.start();
    GitHubAppConfig app = app(api);
    CompletableFuture<TestAppliance> starting = CompletableFuture.supplyAsync(() -> {
      try {
        return TestAppliance.start(tmp.resolve("data"), app);
      } catch (Exception e) {
        throw new CompletionException(e);
      }
    });
    try {
      assertThat(asked.await(WITHIN.toMillis(), TimeUnit.MILLISECONDS))
          .as("the start asks the App API").isTrue();
      assertThat(starting).as("the start waits for the App API's first answer").isNotDone();
      answer.countDown();
      try (TestAppliance a = starting.get(WITHIN.toMillis(), TimeUnit.MILLISECONDS)) {
        HttpResponse<String> first = a.get("/readyz");
        assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
      }
    } finally {
      answer.countDown();
      api.stop(0);
    }
  }

  /** A GitHub App of a fresh key whose API is {@code api}, asked once a call. */
  private GitHubAppConfig app(HttpServer api) throws Exception {
    return TestAppliance.appWithFreshKey(tmp,
        URI.create("http://127.0.0.1:" + api.getAddress().getPort()), Duration.ofSeconds(5));
  }

  private static HttpResponse<String> awaitStatus(TestAppliance a, int status) throws Exception {
    return Wait.forValue(WITHIN, "/readyz to answer " + status, () -> a.get("/readyz"),
        r -> r.statusCode() == status);
  }
}
