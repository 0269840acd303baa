package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.http.HttpServer;
import dev.pushgate.testkit.RawHttp;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The egress proxy's error lines: its own refusals in its words, and a failure it did not word
 * (a handler that throws) as the fixed line of the status, the exception's message left out.
 */
class EgressErrorsTest {
  private static final String MARKER = "MARKER-ghp_secretInTheMessage";

  private Server server;
  private int port;

  @BeforeEach
  void start() throws Exception {
    server = EgressProxy.newServer(); // the proxy's own server, its error lines set
    ServerConnector tcp = HttpServer.tcp(server, "127.0.0.1", 0, null);
    server.setHandler(new Handler.Abstract() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) {
        if (request.getHttpURI().getPath().equals("/refused")) {
          Response.writeError(request, response, callback, 403, "pushgate: refused, as worded");
          return true;
        }
        throw new IllegalStateException(MARKER + " read from " + request.getHttpURI());
      }
    });
    HttpServer.start(server, "the test proxy");
    port = tcp.getLocalPort();
  }

  @AfterEach
  void stop() throws Exception {
    server.stop();
  }

  @Test
  void aHandlerThatThrowsIsAnsweredWithTheStatusAloneNotItsMessage() throws Exception {
    String answer = exchange("GET http://example.test/URIMARK HTTP/1.1\r\nHost: example.test\r\n"
        + "\r\n");

    assertThat(answer).startsWith("HTTP/1.1 500 ")
        .endsWith("\r\n\r\npushgate: HTTP 500 Server Error; the appliance's log says why\n")
        .doesNotContain("MARKER").doesNotContain("URIMARK").doesNotContain("IllegalState");
  }

  @Test
  void aRefusalTheProxyWordsKeepsItsWords() throws Exception {
    String answer = exchange("GET http://example.test/refused HTTP/1.1\r\nHost: example.test\r\n"
        + "\r\n");

    assertThat(answer).startsWith("HTTP/1.1 403 ")
        .endsWith("\r\n\r\npushgate: refused, as worded\n");
  }

  private String exchange(String request) throws Exception {
    return RawHttp.exchange(port, request);
  }
}
