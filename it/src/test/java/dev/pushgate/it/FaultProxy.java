package dev.pushgate.it;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;

/**
 * A loopback HTTP proxy in front of an upstream (a second appliance's local forge, standing in
 * for GitHub) that injects faults by request line: answer 503 instead of upstream, or forward
 * part of a request body and then reset both connections, as an upstream that dies mid-push.
 * One request per connection ({@code Connection: close} is forced), so every request is seen.
 */
final class FaultProxy implements AutoCloseable {
  /** What the proxy does with one request. */
  enum Action {
    PASS,
    FAIL_503,
    /** Forwards the head and a few bytes of the body, then resets both sides. */
    DIE_MID_BODY
  }

  private final ServerSocket server;
  private final int upstreamPort;
  private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "fault-proxy");
    t.setDaemon(true);
    return t;
  });
  private final List<String> seen = Collections.synchronizedList(new ArrayList<>());
  private volatile Function<String, Action> rule = line -> Action.PASS;

  private FaultProxy(int upstreamPort) throws IOException {
    this.upstreamPort = upstreamPort;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    threads.execute(this::acceptLoop);
  }

  static FaultProxy to(int upstreamPort) throws IOException {
    return new FaultProxy(upstreamPort);
  }

  int port() {
    return server.getLocalPort();
  }

  /** Decides each request by its request line ("POST /forge/... HTTP/1.1"). */
  void rule(Function<String, Action> rule) {
    this.rule = rule;
  }

  /** Lets everything through again. */
  void heal() {
    this.rule = line -> Action.PASS;
  }

  /** Request lines seen so far, in order. */
  List<String> seen() {
    synchronized (seen) {
      return List.copyOf(seen);
    }
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        threads.execute(() -> handle(client));
      } catch (IOException e) {
        return;
      }
    }
  }

  private void handle(Socket client) {
    try (client) {
      InputStream in = client.getInputStream();
      String head = readHead(in);
      if (head == null) {
        return;
      }
      String requestLine = head.substring(0, head.indexOf("\r\n"));
      seen.add(requestLine);
      Action action = rule.apply(requestLine);
      if (action == Action.FAIL_503) {
        drainBody(in, head);
        byte[] body = "{\"message\":\"Service Unavailable (injected by the test)\"}"
            .getBytes(StandardCharsets.UTF_8);
        OutputStream out = client.getOutputStream();
        out.write(("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
            + "Content-Length: " + body.length + "\r\nConnection: close\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
        out.write(body);
        out.flush();
        return;
      }
      try (Socket up = new Socket(InetAddress.getLoopbackAddress(), upstreamPort)) {
        OutputStream upOut = up.getOutputStream();
        upOut.write(closing(head).getBytes(StandardCharsets.ISO_8859_1));
        if (action == Action.DIE_MID_BODY) {
          byte[] some = in.readNBytes(64);
          upOut.write(some);
          upOut.flush();
          up.setSoLinger(true, 0);
          client.setSoLinger(true, 0);
          return; // both closed with a reset
        }
        threads.execute(() -> pipe(in, upOut));
        pipe(up.getInputStream(), client.getOutputStream());
      }
    } catch (IOException e) {
      // A side hung up; the other one learns it from the closed socket.
    }
  }

  /** The request head with any connection header replaced by {@code Connection: close}. */
  private static String closing(String head) {
    StringBuilder out = new StringBuilder();
    for (String line : head.split("\r\n")) {
      String lower = line.toLowerCase(Locale.ROOT);
      if (line.isEmpty() || lower.startsWith("connection:") || lower.startsWith("keep-alive:")
          || lower.startsWith("proxy-connection:")) {
        continue;
      }
      out.append(line).append("\r\n");
    }
    return out.append("Connection: close\r\n\r\n").toString();
  }

  private static void drainBody(InputStream in, String head) throws IOException {
    for (String line : head.split("\r\n")) {
      if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
        in.readNBytes(Integer.parseInt(line.substring(15).strip()));
      }
    }
  }

  private static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    for (int b; (b = in.read()) >= 0; ) {
      head.write(b);
      matched = (b == '\r' && (matched == 0 || matched == 2)) || (b == '\n' && (matched == 1
          || matched == 3)) ? matched + 1 : (b == '\r' ? 1 : 0);
      if (matched == 4) {
        return head.toString(StandardCharsets.ISO_8859_1);
      }
    }
    return null;
  }

  private static void pipe(InputStream in, OutputStream out) {
    byte[] buf = new byte[65536];
    try {
      for (int n; (n = in.read(buf)) > 0; ) {
        out.write(buf, 0, n);
        out.flush();
      }
    } catch (IOException e) {
      // The other side closed.
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    threads.shutdownNow();
  }
}
