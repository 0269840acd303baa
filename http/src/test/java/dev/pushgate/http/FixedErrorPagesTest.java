package dev.pushgate.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.testkit.RawHttp;
import dev.pushgate.testkit.Wait;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every server pushgate builds answers a failure Jetty handles itself with one fixed line per
 * status: nothing of the exception (its message may hold what the appliance read) and nothing of
 * the request (its URI may hold a token, or terminal escapes for whoever prints the answer).
 */
class FixedErrorPagesTest {
  private static final String MARKER = "MARKER-ghp_secretInTheMessage";
  /** A URI with a token in it and, in its query, an escape sequence, percent-encoded. */
  private static final String URI_MARK = "/repos/URIMARK/ghp_tokenInThePath?q=URIQUERY%1b%5b2J";

  private Server server;
  private int port;

  @BeforeEach
  void start() throws Exception {
    server = HttpServer.named("pushgate-test").threads(8, 2)
        .stopTimeout(Duration.ofSeconds(1)).build();
    ServerConnector tcp = HttpServer.tcp(server, "127.0.0.1", 0, null);
    server.setHandler(new Handler.Abstract() {
      @Override
      public boolean handle(org.eclipse.jetty.server.Request request,
          org.eclipse.jetty.server.Response response, org.eclipse.jetty.util.Callback callback) {
        throw new IllegalStateException(MARKER + " read from " + request.getHttpURI());
      }
    });
    HttpServer.start(server, "the test server");
    port = tcp.getLocalPort();
  }

  @AfterEach
  void stop() throws Exception {
    server.stop();
  }

  @Test
  void aHandlerThatThrowsIsAnsweredWithTheStatusAlone() throws Exception {
    for (String accept : new String[] {"text/html", "application/json", "text/plain", "*/*"}) {
      for (String method : new String[] {"GET", "POST", "PUT"}) {
        String answer = exchange(method + " " + URI_MARK + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + "Accept: " + accept + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");

        assertThat(answer).as(method + " " + accept).startsWith("HTTP/1.1 500 ")
            .endsWith("\r\n\r\npushgate: HTTP 500 Server Error; the appliance's log"
                + " says why\n")
            .doesNotContain("MARKER").doesNotContain("URIMARK").doesNotContain("URIQUERY")
            .doesNotContain("ghp_").doesNotContain("IllegalStateException")
            .containsIgnoringCase("Content-Type: text/plain; charset=utf-8");
      }
    }
  }

  @Test
  void aRequestJettyCannotParseIsAnsweredWithTheStatusAlone() throws Exception {
    // A header name Jetty refuses, the request's own text in it.
    String answer = exchange("GET " + URI_MARK + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        + "Bad URIMARK\u0001Header: x\r\nConnection: close\r\n\r\n");

    assertThat(answer).startsWith("HTTP/1.1 400 ")
        .endsWith("\r\n\r\npushgate: HTTP 400 Bad Request\n")
        .doesNotContain("URIMARK").doesNotContain("URIQUERY").doesNotContain("ghp_");
  }

  @Test
  void aRequestRefusedWhileTheServerStopsSaysSo() throws Exception {
    // A server stopping gracefully refuses the requests that still arrive on its connections
    // (GracefulHandler) while it waits for the one in flight: the answer says why.
    Server stopping = HttpServer.named("pushgate-test-stop").threads(8, 2)
        .stopTimeout(Duration.ofSeconds(30)).build();
    ServerConnector tcp = HttpServer.tcp(stopping, "127.0.0.1", 0, null);
    // The kept connection stays open through the stop however slow the machine (Jetty's stop
    // cuts a connection idle for a second by default).
    tcp.setShutdownIdleTimeout(30_000);
    CountDownLatch inFlight = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    GracefulHandler graceful =
        new GracefulHandler();
    stopping.setHandler(graceful);
    graceful.setHandler(new Handler.Abstract() {
          @Override
          public boolean handle(org.eclipse.jetty.server.Request request,
              org.eclipse.jetty.server.Response response, org.eclipse.jetty.util.Callback callback)
              throws Exception {
            if (request.getHttpURI().getPath().equals("/slow")) {
              inFlight.countDown();
              release.await();
            }
            response.setStatus(200);
            callback.succeeded();
            return true;
          }
        });
    HttpServer.start(stopping, "the test server");
    int at = tcp.getLocalPort();
    String get = "GET /quick HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    try (Socket kept = new Socket("127.0.0.1", at);
        Socket slow = new Socket("127.0.0.1", at)) {
      kept.setSoTimeout(30_000);
      kept.getOutputStream().write(get.getBytes(StandardCharsets.US_ASCII));
      assertThat(head(kept)).startsWith("HTTP/1.1 200 ");
      slow.getOutputStream().write("GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
          .getBytes(StandardCharsets.US_ASCII));
      assertThat(inFlight.await(30, TimeUnit.SECONDS)).isTrue();
      Thread stopper = new Thread(() -> {
        try {
          stopping.stop();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      stopper.start();
      Wait.until(Duration.ofSeconds(30),
          "the server to refuse new requests", graceful::isShutdown);
      kept.getOutputStream().write(get.getBytes(StandardCharsets.US_ASCII));
      String refused = new String(kept.getInputStream().readAllBytes(),
          StandardCharsets.UTF_8);

      assertThat(refused).startsWith("HTTP/1.1 503 ").endsWith("\r\n\r\n"
          + "pushgate: HTTP 503 Service Unavailable: the appliance is shutting down; nothing was"
          + " done, retry once it is back\n");
      release.countDown();
      slow.close(); // the stop waits for its connections to close
      kept.close();
      stopper.join(30_000);
    } finally {
      release.countDown();
      stopping.stop();
    }
  }

  /** Reads one answer's head and its {@code Content-Length} body off a kept connection. */
  private static String head(Socket s) throws Exception {
    String head = RawHttp.head(s.getInputStream());
    Matcher m = Pattern.compile("(?i)content-length: *(\\d+)").matcher(head);
    if (m.find()) {
      s.getInputStream().readNBytes(Integer.parseInt(m.group(1)));
    }
    return head;
  }

  private String exchange(String request) throws Exception {
    return RawHttp.exchange(port, request);
  }
}
