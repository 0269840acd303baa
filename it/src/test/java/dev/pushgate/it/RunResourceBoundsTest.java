package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pushgate.testkit.ControlClient;
import dev.pushgate.testkit.GitRun;
import dev.pushgate.testkit.RunningAppliance;
import dev.pushgate.testkit.Wait;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One run that floods the appliance (held questions, slow and huge hook bodies, stalled pushes,
 * idle connections) takes no more than its share: other runs, the control API and
 * {@code /healthz} keep answering.
 */
class RunResourceBoundsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path EXAMPLES =
      Path.of("src/test/resources/claude-code-pretooluse-examples.json");
  private static final int ASKS = 300;
  private static final int SLOW_BODIES = 40;
  private static final int STALLED_PUSHES = 40;

  @TempDir Path tmp;

  @Test
  void oneRunFloodingAsksAndSlowBodiesStarvesNoOtherRun() throws Exception {
    try (RunningAppliance app = RunningAppliance.start(tmp.resolve("data"));
        Sockets sockets = new Sockets()) {
      app.forgeCreate("acme/widget");
      app.forgeCreate("acme/other");
      JsonNode flood = app.createRun(
          "{\"workspaceId\": \"ws-flood\", \"repository\": \"acme/widget\"}");
      String floodToken = flood.at("/env/PUSHGATE_RUN_TOKEN").asText();
      String floodRun = flood.get("runId").asText();
      JsonNode quiet = app.createRun(
          "{\"workspaceId\": \"ws-quiet\", \"repository\": \"acme/other\"}");
      GitRun git = new GitRun(Files.createDirectories(tmp.resolve("home")),
          RunningAppliance.runEnv(quiet));
      Path w = Clones.withOneCommit(git, tmp, "acme/other", "1\n", "one");
      git.in(w, "push", "-q", "origin", "HEAD:refs/heads/warm-up").ok();

      ApprovalStream approver = ApprovalStream.connect(app.dataDir);
      sockets.onClose(approver::close);

      // 300 asks at once from one run.
      String ask = JSON.readTree(Files.readString(EXAMPLES)).at("/input_examples/bash_git_push")
          .toString();
      HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
      List<CompletableFuture<HttpResponse<String>>> asks = new ArrayList<>();
      for (int i = 0; i < ASKS; i++) {
        asks.add(http.sendAsync(hookCall(app, floodToken, ask),
            HttpResponse.BodyHandlers.ofString()));
      }
      Wait.forValue(Duration.ofSeconds(30), "all but 16 of the run's " + ASKS
          + " hook calls to be answered (at most 16 may wait); answered so far",
          () -> asks.stream().filter(CompletableFuture::isDone).count(), n -> n >= ASKS - 16);
      int answered = 0;
      for (CompletableFuture<HttpResponse<String>> a : asks) {
        if (a.isDone()) {
          // Past the connection limit, connections idle for a second are closed (the flood's
          // own, on a busy machine, before their request was read): refused, never allowed.
          if (a.isCompletedExceptionally()) {
            assertThatThrownBy(a::join).hasRootCauseInstanceOf(java.io.IOException.class);
            continue;
          }
          answered++;
          HttpResponse<String> r = a.get();
          assertThat(r.statusCode()).isEqualTo(200);
          JsonNode out = JSON.readTree(r.body()).get("hookSpecificOutput");
          assertThat(out.get("permissionDecision").asText()).isEqualTo("deny");
          assertThat(out.get("permissionDecisionReason").asText()).matches(
              "Control Center policy: (this run already has 16 hook calls waiting; denied"
                  + " without looking, retry once they end|.* \\(this run already has 8 questions"
                  + " waiting for an approver; this one was not asked\\))");
        }
      }
      assertThat(answered).as("the flood's hook calls answered with a refusal").isPositive();
      JsonNode pending = app.control().get("/v1/approvals").body().get("questions");
      assertThat(pending.size()).isBetween(1, 8);

      // A body of 300 MB, announced, and one sent in chunks with no length at all.
      Socket huge = sockets.open(app.port(), "POST /v1/hooks/pre-tool-use HTTP/1.1\r\n"
          + "Host: 127.0.0.1\r\nAuthorization: Bearer " + floodToken + "\r\n"
          + "Content-Type: application/json\r\nContent-Length: 314572800\r\n\r\n{\"a\":\"");
      Socket chunked = sockets.open(app.port(), "POST /v1/hooks/pre-tool-use HTTP/1.1\r\n"
          + "Host: 127.0.0.1\r\nAuthorization: Bearer " + floodToken + "\r\n"
          + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n");
      Future<Long> chunkedSent = sockets.pool.submit(() -> sendChunks(chunked, 300L << 20));

      // The 300 MB body is refused unread; the chunked one is cut at 1 MiB.
      assertThat(statusAndBody(huge, 5)).startsWith("HTTP/1.1 200").contains(
          "Control Center policy: the hook's input is larger than 1048576 bytes; denied unread");
      assertThat(statusAndBody(chunked, 30)).startsWith("HTTP/1.1 200")
          .contains("Control Center policy: the hook's input is larger than 1048576 bytes;"
              + " denied unread");
      assertThat(chunkedSent.get(60, TimeUnit.SECONDS)).isLessThan(64L << 20);

      // Slow bodies: announced, never finished.
      List<Socket> slowHooks = new ArrayList<>();
      for (int i = 0; i < SLOW_BODIES; i++) {
        slowHooks.add(sockets.open(app.port(), "POST /v1/hooks/pre-tool-use HTTP/1.1\r\n"
            + "Host: 127.0.0.1\r\nAuthorization: Bearer " + floodToken + "\r\n"
            + "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"session_id\":"));
      }
      List<Socket> stalledPushes = new ArrayList<>();
      for (int i = 0; i < STALLED_PUSHES; i++) {
        stalledPushes.add(sockets.open(app.port(),
            "POST /git/github.com/acme/widget.git/git-receive-pack HTTP/1.1\r\n"
                + "Host: 127.0.0.1\r\nAuthorization: Bearer " + floodToken + "\r\n"
                + "Content-Type: application/x-git-receive-pack-request\r\n"
                + "Content-Length: 100000\r\n\r\n0098"));
      }
      // Meanwhile another run pushes, a launcher starts a run, and /healthz answers.
      Files.writeString(w.resolve("f.txt"), "2\n");
      git.in(w, "commit", "-qam", "two").ok();
      // Served while the flood still holds its share: the 16 stalled pushes the run may keep
      // waiting are still unanswered (below they wait 5 s more). A push starved by them would
      // land only once the appliance let them go.
      git.in(w, "push", "-q", "origin", "HEAD:refs/heads/feature").ok();
      ControlClient.Answer created = app.control().post("/v1/runs",
          "{\"workspaceId\": \"ws-late\", \"repository\": \"acme/other\"}");
      assertThat(created.status()).isEqualTo(201);
      assertThat(app.healthz()).isEqualTo(200);
      assertThat(unanswered(stalledPushes))
          .as("the flood's stalled pushes still held when the other run's push and the new run"
              + " were served")
          .isGreaterThanOrEqualTo(16);

      // The run's share of stalled pushes waits; the rest are refused at once.
      List<Future<String>> pushAnswers = new ArrayList<>();
      for (Socket s : stalledPushes) {
        pushAnswers.add(sockets.pool.submit(() -> statusLine(s, 5)));
      }
      int refused = 0;
      for (Future<String> f : pushAnswers) {
        String status = f.get(60, TimeUnit.SECONDS);
        if (status.startsWith("HTTP/1.1 429")) {
          refused++;
        } else {
          assertThat(status).isEqualTo("(no answer yet)");
        }
      }
      assertThat(refused).isEqualTo(STALLED_PUSHES - 16);

      // Every slow body is answered by the body timeout, or at once past the run's share.
      List<Future<String>> hookAnswers = new ArrayList<>();
      for (Socket s : slowHooks) {
        hookAnswers.add(sockets.pool.submit(() -> statusAndBody(s, 30)));
      }
      for (Future<String> f : hookAnswers) {
        assertThat(f.get(60, TimeUnit.SECONDS)).startsWith("HTTP/1.1 200").containsPattern(
            "Control Center policy: (the hook's input did not arrive within 10 s; denied unread"
                + "|this run already has 16 hook calls waiting)");
      }
      assertThat(app.control().delete("/v1/runs/" + floodRun).status()).isEqualTo(200);
    }
  }

  /**
   * Idle connections past the cap are closed, and the appliance holds no more descriptors than
   * the cap allows, while the control API answers at once and /healthz soon after.
   */
  @Test
  void idleConnectionsPastTheCapAreClosedAndTheApplianceKeepsAnswering() throws Exception {
    try (RunningAppliance app = RunningAppliance.start(tmp.resolve("data"),
        "--max-connections", "64");
        Sockets sockets = new Sockets()) {
      long before = openDescriptors(app.pid());
      List<Socket> idle = new ArrayList<>();
      for (int i = 0; i < 400; i++) {
        idle.add(sockets.connect(app.port()));
      }
      // Answered before the appliance has worked through the idle connections (it closes
      // those past the cap a round of 64 a second): a control API starved by them would answer
      // only once every one was closed.
      assertThat(app.control().get("/v1/runs").status()).isEqualTo(200);
      assertThat(Idle.of(idle).open())
          .as("idle connections still open when the control API answered").isPositive();
      assertThat(openDescriptors(app.pid()) - before).isLessThanOrEqualTo(64 + 16);
      // /healthz waits behind the idle connections the kernel queued, each closed within 1 s
      // once the cap is reached: 400 / 64 rounds.
      Wait.until(Duration.ofSeconds(30), "/healthz to answer 200", () -> app.healthz() == 200);
      assertThat(Idle.of(idle).closed()).as("idle connections closed by the appliance")
          .isGreaterThan(0);
      assertThat(openDescriptors(app.pid()) - before).isLessThanOrEqualTo(64 + 16);
    }
  }

  private static HttpRequest hookCall(RunningAppliance app, String token, String body) {
    return HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + app.port() + "/v1/hooks/pre-tool-use"))
        .header("Authorization", "Bearer " + token)
        .header("Content-Type", "application/json")
        .timeout(Duration.ofSeconds(120))
        .POST(HttpRequest.BodyPublishers.ofString(body)).build();
  }

  /** Writes 64 KiB chunks until {@code limit} or until the appliance stops reading. */
  private static long sendChunks(Socket s, long limit) {
    byte[] data = new byte[64 << 10];
    java.util.Arrays.fill(data, (byte) 'a');
    byte[] head = (Integer.toHexString(data.length) + "\r\n").getBytes(StandardCharsets.US_ASCII);
    long sent = 0;
    try {
      OutputStream out = s.getOutputStream();
      while (sent < limit) {
        out.write(head);
        out.write(data);
        out.write(new byte[] {'\r', '\n'});
        sent += data.length;
      }
    } catch (IOException e) {
      // The appliance closed the connection: what matters is how much it took.
    }
    return sent;
  }

  private static String statusLine(Socket s, int seconds) throws IOException {
    s.setSoTimeout(seconds * 1000);
    try {
      String all = new String(readSome(s.getInputStream()), StandardCharsets.ISO_8859_1);
      return all.isEmpty() ? "(closed)" : all.lines().findFirst().orElse("");
    } catch (SocketTimeoutException e) {
      return "(no answer yet)";
    }
  }

  private static String statusAndBody(Socket s, int seconds) throws IOException {
    s.setSoTimeout(seconds * 1000);
    InputStream in = s.getInputStream();
    StringBuilder all = new StringBuilder();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    try {
      while (!all.toString().contains("}}") && System.nanoTime() < deadline) {
        byte[] got = readSome(in);
        if (got.length == 0) {
          break;
        }
        all.append(new String(got, StandardCharsets.UTF_8));
      }
    } catch (SocketTimeoutException e) {
      // answered with what came
    } catch (IOException e) {
      // reset after the answer: what came is the answer
    }
    return all.toString();
  }

  /** How many of {@code sockets} have nothing to read yet, looked at without waiting. */
  private static int unanswered(List<Socket> sockets) throws IOException {
    int n = 0;
    for (Socket s : sockets) {
      if (s.getInputStream().available() == 0) {
        n++;
      }
    }
    return n;
  }

  /** Of connections that are sent nothing, how many are still open and how many were closed. */
  private record Idle(int open, int closed) {
    static Idle of(List<Socket> sockets) throws IOException {
      int open = 0;
      int closed = 0;
      for (Socket s : sockets) {
        s.setSoTimeout(1);
        try {
          if (s.getInputStream().read() == -1) {
            closed++;
          }
        } catch (SocketTimeoutException e) {
          open++;
        } catch (java.net.SocketException e) {
          // reset: neither
        }
      }
      return new Idle(open, closed);
    }
  }

  private static byte[] readSome(InputStream in) throws IOException {
    byte[] buf = new byte[8192];
    int n = in.read(buf);
    return n < 0 ? new byte[0] : java.util.Arrays.copyOf(buf, n);
  }

  private static long openDescriptors(long pid) throws IOException {
    try (var s = Files.list(Path.of("/proc", String.valueOf(pid), "fd"))) {
      return s.count();
    }
  }

  /** Sockets and helpers of one test, all closed at its end. */
  private static final class Sockets implements AutoCloseable {
    final ExecutorService pool = Executors.newFixedThreadPool(48);
    private final List<AutoCloseable> open = new ArrayList<>();

    Socket connect(int port) throws IOException {
      Socket s = new Socket();
      s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
      open.add(s);
      return s;
    }

    Socket open(int port, String head) throws IOException {
      Socket s = connect(port);
      s.getOutputStream().write(head.getBytes(StandardCharsets.UTF_8));
      s.getOutputStream().flush();
      return s;
    }

    void onClose(Runnable r) {
      open.add(r::run);
    }

    @Override
    public void close() throws Exception {
      pool.shutdownNow();
      for (AutoCloseable c : open) {
        try {
          c.close();
        } catch (Exception ignored) {
          // closing everything regardless
        }
      }
    }
  }
}
