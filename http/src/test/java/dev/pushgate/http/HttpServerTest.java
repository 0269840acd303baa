package dev.pushgate.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.unixdomain.server.UnixDomainServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HttpServerTest {
  @Test
  void servesOnAnEphemeralPortWithThreadsNamedForTheServer() throws Exception {
    Server server = HttpServer.named("pushgate-test").threads(8, 2)
        .stopTimeout(Duration.ofSeconds(1)).build();
    ServerConnector tcp = HttpServer.tcp(server, "127.0.0.1", 0, Duration.ofSeconds(7));
    AtomicReference<String> thread = new AtomicReference<>();
    server.setHandler(new Handler.Abstract() {
      @Override
      public boolean handle(org.eclipse.jetty.server.Request request,
          org.eclipse.jetty.server.Response response, org.eclipse.jetty.util.Callback callback) {
        thread.set(Thread.currentThread().getName());
        // closed after the answer: a kept-alive connection would hold the graceful stop below
        // past its 1 s stop timeout, and stop() throws its TimeoutException
        response.getHeaders().put(org.eclipse.jetty.http.HttpHeader.CONNECTION, "close");
        Content.Sink.write(response, true, "ok", callback);
        return true;
      }
    });
    HttpServer.start(server, "the test server");
    try {
      HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + tcp.getLocalPort() + "/")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(answer.body()).isEqualTo("ok");
      assertThat(thread.get()).startsWith("pushgate-test-");
      assertThat(tcp.getIdleTimeout()).isEqualTo(7000);
      assertThat(server.getStopTimeout()).isEqualTo(1000);
      QueuedThreadPool pool = (QueuedThreadPool) server.getThreadPool();
      assertThat(pool.getMaxThreads()).isEqualTo(8);
      assertThat(pool.getMinThreads()).isEqualTo(2);
    } finally {
      server.stop();
    }
  }

  @Test
  void aUnixSocketConnectorListensOnItsPath(@TempDir Path dir) throws Exception {
    Server server = HttpServer.named("pushgate-test").threads(8, 2).build();
    Path socket = dir.resolve("s.sock");
    UnixDomainServerConnector unix = HttpServer.unixSocket(server, socket, null);
    AtomicReference<Boolean> afterStart = new AtomicReference<>(false);
    HttpServer.start(server, "the test server", () -> afterStart.set(socket.toFile().exists()));
    try {
      assertThat(afterStart.get()).isTrue();
      assertThat(server.getConnectors()).containsExactly(unix);
    } finally {
      server.stop();
    }
  }

  @Test
  void aServerThatCannotStartIsStoppedAndSaysWhat() throws Exception {
    Server server = HttpServer.named("pushgate-test").threads(8, 2).build();
    HttpServer.tcp(server, "127.0.0.1", 0, null);
    assertThatThrownBy(() -> HttpServer.start(server, "the test server", () -> {
      throw new IllegalStateException("the socket cannot be shared");
    })).isInstanceOf(IOException.class)
        .hasMessage("cannot start the test server: the socket cannot be shared");
    assertThat(server.isStopped()).isTrue();
  }

  @Test
  void threadsAreNamedForPushgate() {
    assertThatThrownBy(() -> HttpServer.named("qtp"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a server's threads are named pushgate-…: qtp");
  }
}
