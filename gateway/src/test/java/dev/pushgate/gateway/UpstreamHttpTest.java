package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpServer;
import dev.pushgate.types.Secret;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.eclipse.jgit.transport.UserAgent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The ref list and the push go to upstream with one set of headers, and nowhere else. */
class UpstreamHttpTest {
  private static final Secret TOKEN = Secret.of("ghs_test-token");

  /** What upstream saw: method, path and query, headers. */
  record Seen(String request, Headers headers) {}

  private final List<Seen> seen = new CopyOnWriteArrayList<>();
  private HttpServer server;
  private String url;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", exchange -> {
      seen.add(new Seen(exchange.getRequestMethod() + " " + exchange.getRequestURI(),
          exchange.getRequestHeaders()));
      exchange.getRequestBody().readAllBytes();
      if (exchange.getRequestURI().getPath().startsWith("/moved")) {
        exchange.getResponseHeaders().add("Location", url + "/elsewhere/info/refs");
        exchange.sendResponseHeaders(302, -1);
      } else {
        exchange.sendResponseHeaders(404, -1);
      }
      exchange.close();
    });
    server.start();
    url = "http://127.0.0.1:" + server.getAddress().getPort();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  @Test
  void theRefListAndThePushCarryTheSameCredentialsAndAgent() throws Exception {
    UpstreamHttp upstream = new UpstreamHttp(5);

    HttpURLConnection list = upstream.lsRefs(url + "/acme/widget.git", TOKEN);
    try (OutputStream body = list.getOutputStream()) {
      body.write(UpstreamRefList.LS_REFS);
    }
    assertThat(list.getResponseCode()).isEqualTo(404);
    HttpURLConnection post = upstream.receivePack(url + "/acme/widget.git", TOKEN);
    try (OutputStream body = post.getOutputStream()) {
      body.write("0000".getBytes(StandardCharsets.US_ASCII));
    }
    assertThat(post.getResponseCode()).isEqualTo(404);

    assertThat(seen).extracting(Seen::request).containsExactly(
        "POST /acme/widget.git/git-upload-pack",
        "POST /acme/widget.git/git-receive-pack");
    String basic = "Basic " + Base64.getEncoder().encodeToString(
        "x-access-token:ghs_test-token".getBytes(StandardCharsets.UTF_8));
    for (Seen s : seen) {
      assertThat(s.headers().getFirst("Authorization")).as(s.request()).isEqualTo(basic);
      assertThat(s.headers().getFirst("User-Agent")).as(s.request()).isEqualTo(UserAgent.get());
    }
    Map<String, List<String>> listHeaders = seen.get(0).headers();
    assertThat(listHeaders.get("Accept")).containsExactly("application/x-git-upload-pack-result");
    assertThat(listHeaders.get("Git-Protocol")).containsExactly("version=2");
    Headers postHeaders = seen.get(1).headers();
    assertThat(postHeaders.getFirst("Accept")).isEqualTo("application/x-git-receive-pack-result");
    assertThat(postHeaders.getFirst("Content-Type"))
        .isEqualTo("application/x-git-receive-pack-request");
    assertThat(postHeaders.getFirst("Transfer-Encoding")).isEqualTo("chunked");
  }

  @Test
  void aCacheFetchIsSentWholeAndAgainOnANewConnectionWhenUpstreamClosedTheKeptOne()
      throws Exception {
    // Upstream answers each request on a connection and closes it without saying so: the
    // client keeps the first connection for the fetch, finds it closed, and must not fail.
    try (ServerSocket upstream = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      List<String> requests = new CopyOnWriteArrayList<>();
      Thread server = new Thread(() -> {
        for (int i = 0; i < 3; i++) {
          try (Socket s = upstream.accept()) {
            BufferedReader in = new BufferedReader(
                new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1));
            String head = in.readLine();
            if (head == null) {
              continue; // a kept connection the client closed
            }
            int length = 0;
            for (String line; !(line = in.readLine()).isEmpty(); ) {
              if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                length = Integer.parseInt(line.substring(15).trim());
              }
            }
            char[] body = new char[length];
            for (int n = 0; n < length; ) {
              n += in.read(body, n, length - n);
            }
            requests.add(head + " " + new String(body));
            s.getOutputStream().write(("HTTP/1.1 200 OK\r\nContent-Type: "
                + UpstreamHttp.UPLOAD_PACK_RESULT + "\r\nContent-Length: 0\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
          } catch (IOException e) {
            return;
          }
        }
      });
      server.setDaemon(true);
      server.start();
      String base = "http://127.0.0.1:" + upstream.getLocalPort() + "/acme/widget.git";
      UpstreamHttp http = new UpstreamHttp(5);

      HttpURLConnection list = http.lsRefs(base, TOKEN);
      try (OutputStream out = list.getOutputStream()) {
        out.write("0000".getBytes(StandardCharsets.US_ASCII));
      }
      assertThat(list.getResponseCode()).isEqualTo(200);
      list.getInputStream().readAllBytes(); // the connection is kept for the next request
      HttpURLConnection fetch = http.uploadPack(base, TOKEN);
      try (OutputStream out = fetch.getOutputStream()) {
        out.write("0032want 0123456789012345678901234567890123456789\n00000009done\n"
            .getBytes(StandardCharsets.US_ASCII));
      }
      assertThat(fetch.getResponseCode()).isEqualTo(200);

      assertThat(requests).containsExactly(
          "POST /acme/widget.git/git-upload-pack HTTP/1.1 0000",
          "POST /acme/widget.git/git-upload-pack HTTP/1.1 "
              + "0032want 0123456789012345678901234567890123456789\n00000009done\n");
    }
  }

  @Test
  void aRedirectIsNotFollowedSoTheTokenGoesNowhereElse() throws Exception {
    HttpURLConnection list = new UpstreamHttp(5).lsRefs(url + "/moved.git", TOKEN);
    try (OutputStream out = list.getOutputStream()) {
      out.write(UpstreamRefList.LS_REFS);
    }

    assertThat(list.getResponseCode()).isEqualTo(302);
    assertThat(seen).extracting(Seen::request)
        .containsExactly("POST /moved.git/git-upload-pack");
    assertThat(UpstreamRefList.read(url + "/moved.git", TOKEN, 5)).isEmpty();
  }

  @Test
  void onlyHttpUrlsAreOpened() {
    UpstreamHttp upstream = new UpstreamHttp(5);
    for (String remote : List.of("file:///srv/git/widget.git", "ssh://git@example.com/w.git",
        "ftp://127.0.0.1/w.git", "/srv/git/widget.git")) {
      assertThatThrownBy(() -> upstream.receivePack(remote, TOKEN)).as(remote)
          .isInstanceOf(IllegalArgumentException.class).hasMessage("not an HTTP URL");
      assertThatThrownBy(() -> upstream.lsRefs(remote, TOKEN)).as(remote)
          .isInstanceOf(IllegalArgumentException.class);
      assertThat(UpstreamRefList.read(remote, TOKEN, 5)).as(remote).isEmpty();
    }
    assertThat(seen).isEmpty();
  }
}
