package dev.pushgate.bench;

import dev.pushgate.testkit.Wait;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A byte-for-byte relay on 127.0.0.1 that git uses as its HTTP proxy ({@code -c
 * http.proxy=...}), timestamping each request and response on the wire. It shows what git alone
 * cannot: how long the server took to answer after the last byte of a pack arrived.
 *
 * <p>git sends plain-HTTP requests to a proxy in absolute form; Jetty accepts those, so the relay
 * need not parse anything beyond the first line of each request and response.
 */
final class TimingProxy implements AutoCloseable {
  /** One HTTP exchange as seen on the wire; times are {@link System#nanoTime()}. */
  static final class Exchange {
    final String method;
    final String path;
    final long requestStart;
    volatile long requestLastByte;
    volatile int status = -1;
    volatile long responseFirstByte = -1;
    volatile long responseLastByte = -1;

    Exchange(String method, String path, long t) {
      this.method = method;
      this.path = path;
      this.requestStart = t;
      this.requestLastByte = t;
    }

    /** From the request's last byte to the response's first: the server's time to answer. */
    double serverMillis() {
      return responseFirstByte < 0 ? Double.NaN : (responseFirstByte - requestLastByte) / 1e6;
    }

    double uploadMillis() {
      return (requestLastByte - requestStart) / 1e6;
    }

    @Override
    public String toString() {
      return method + " " + path + " -> " + status;
    }
  }

  private final int target;
  private final ServerSocket server;
  private final List<Exchange> exchanges = new ArrayList<>();
  private final Thread acceptor;

  TimingProxy(int targetPort) throws IOException {
    this.target = targetPort;
    this.server = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
    this.acceptor = new Thread(this::accept, "timing-proxy");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  String url() {
    return "http://127.0.0.1:" + server.getLocalPort();
  }

  /**
   * The exchanges since the last call, once the relay has seen each one's response to its end
   * (after git exits it has, but its threads may not have recorded the last bytes yet); a
   * response that never comes (a refusal that cut the connection) is waited for at most 2 s.
   */
  List<Exchange> drainAnswered() throws Exception {
    try {
      Wait.until(Duration.ofSeconds(2), "the relay to see every response end", this::allAnswered);
    } catch (AssertionError unanswered) {
      // drained as it is: the exchange shows no response
    }
    return drain();
  }

  private synchronized boolean allAnswered() {
    return exchanges.stream().allMatch(e -> e.responseLastByte >= 0);
  }

  /** The exchanges completed or begun since the last call. */
  synchronized List<Exchange> drain() {
    List<Exchange> out = new ArrayList<>(exchanges);
    exchanges.clear();
    return out;
  }

  private synchronized void add(Exchange e) {
    exchanges.add(e);
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        Socket upstream = new Socket();
        upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), target));
        client.setTcpNoDelay(true);
        upstream.setTcpNoDelay(true);
        Connection c = new Connection(client, upstream);
        Thread up = new Thread(c::relayUp, "timing-proxy-up");
        Thread down = new Thread(c::relayDown, "timing-proxy-down");
        up.setDaemon(true);
        down.setDaemon(true);
        up.start();
        down.start();
      } catch (IOException e) {
        if (server.isClosed()) {
          return;
        }
      }
    }
  }

  private final class Connection {
    private final Socket client;
    private final Socket upstream;
    private final List<Exchange> open = new ArrayList<>();
    private Exchange current;
    private int answered;

    Connection(Socket client, Socket upstream) {
      this.client = client;
      this.upstream = upstream;
    }

    void relayUp() {
      byte[] buf = new byte[1 << 16];
      try (InputStream in = client.getInputStream();
          OutputStream out = upstream.getOutputStream()) {
        int n;
        while ((n = in.read(buf)) > 0) {
          long t = System.nanoTime();
          onUp(buf, n, t);
          out.write(buf, 0, n);
          out.flush();
        }
      } catch (IOException ignored) {
        // the peer closed
      } finally {
        closeQuietly();
      }
    }

    void relayDown() {
      byte[] buf = new byte[1 << 16];
      try (InputStream in = upstream.getInputStream();
          OutputStream out = client.getOutputStream()) {
        int n;
        while ((n = in.read(buf)) > 0) {
          long t = System.nanoTime();
          onDown(buf, n, t);
          out.write(buf, 0, n);
          out.flush();
        }
      } catch (IOException ignored) {
        // the peer closed
      } finally {
        closeQuietly();
      }
    }

    private synchronized void onUp(byte[] buf, int n, long t) {
      String head = new String(buf, 0, Math.min(n, 512), StandardCharsets.ISO_8859_1);
      int sp = head.indexOf(' ');
      String method = sp > 0 ? head.substring(0, sp) : "";
      if (method.equals("GET") || method.equals("POST") || method.equals("HEAD")) {
        int end = head.indexOf(' ', sp + 1);
        String uri = end > 0 ? head.substring(sp + 1, end) : head.substring(sp + 1);
        String path = uri.replaceFirst("^https?://[^/]+", "");
        current = new Exchange(method, path, t);
        open.add(current);
        add(current);
      } else if (current != null) {
        current.requestLastByte = t;
      }
    }

    private synchronized void onDown(byte[] buf, int n, long t) {
      String head = new String(buf, 0, Math.min(n, 16), StandardCharsets.ISO_8859_1);
      if (head.startsWith("HTTP/1.")) {
        int status;
        try {
          status = Integer.parseInt(head.substring(9, 12));
        } catch (RuntimeException e) {
          status = 0;
        }
        if (status != 100 && answered < open.size()) {
          Exchange e = open.get(answered++);
          e.status = status;
          e.responseFirstByte = t;
        }
      }
      if (answered > 0) {
        open.get(answered - 1).responseLastByte = t;
      }
    }

    private void closeQuietly() {
      Platform.closeQuietly(client, upstream);
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
  }
}
