package dev.pushgate.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.testkit.RawHttp;
import java.time.Duration;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
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

  private String exchange(String request) throws Exception {
    return RawHttp.exchange(port, request);
  }
}
