package dev.pushgate.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An emulated wide-area link on 127.0.0.1: a TCP relay to one port that delays every byte by half
 * the round trip in each direction and passes it at a set bandwidth (one token bucket per
 * direction, shared by every connection, as one access link is). A new connection pays a round
 * trip before its first byte reaches the far end, as TCP's handshake does (TLS, which GitHub
 * adds, would cost one more; plain HTTP here). No root, no network namespace.
 *
 * <p>It also counts what crosses it, which wall time on a busy machine cannot show: connections
 * opened, HTTP requests by kind (the request line at the start of what a client sends after an
 * answer), and turns: a connection's client sending again after it was answered, each of which
 * waits a round trip on the one before. {@link #counts()} reads the totals; the difference of two
 * readings is what one operation cost.
 */
final class ShapedLink implements AutoCloseable {
  private static final int CHUNK = 16 * 1024;
  /** Chunks in flight per direction of a connection: 4 MiB, past the bandwidth-delay product. */
  private static final int QUEUE = 256;
  private static final Pattern REQUEST_LINE =
      Pattern.compile("^(GET|POST|PUT|PATCH|DELETE|HEAD) (\\S+) HTTP/1\\.[01]\r\n");

  private final int target;
  private final long oneWayNanos;
  private final Direction up;
  private final Direction down;
  private final ServerSocket server;
  private final AtomicLong connections = new AtomicLong();
  private final AtomicLong turns = new AtomicLong();
  private final Map<String, Long> requests = new TreeMap<>();
  /** Every request as it left the client, in order: when (nanoTime) and its kind. */
  private final java.util.List<Sent> sent = new java.util.ArrayList<>();

  /** A request as the client sent it: when its first byte reached the link, and its kind. */
  record Sent(long nanos, String kind) {}

  /**
   * @param targetPort the port on 127.0.0.1 the link leads to
   * @param rttMillis the round trip the link adds
   * @param mbitPerSecond the bandwidth of each direction
   */
  ShapedLink(int targetPort, double rttMillis, double mbitPerSecond) throws IOException {
    if (rttMillis < 0 || mbitPerSecond <= 0) {
      throw new IllegalArgumentException("a link needs a round trip >= 0 and a bandwidth > 0: "
          + rttMillis + " ms, " + mbitPerSecond + " Mbit/s");
    }
    this.target = targetPort;
    this.oneWayNanos = (long) (rttMillis * 1e6 / 2);
    double nanosPerByte = 8e9 / (mbitPerSecond * 1e6);
    this.up = new Direction(nanosPerByte);
    this.down = new Direction(nanosPerByte);
    this.server = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::accept, "shaped-link");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return server.getLocalPort();
  }

  /** What crossed the link so far. */
  synchronized Counts counts() {
    return new Counts(connections.get(), turns.get(), up.bytes.get(), down.bytes.get(),
        Map.copyOf(requests));
  }

  /** Totals of what crossed the link; {@link #minus} gives what happened between two readings. */
  record Counts(long connections, long turns, long bytesUp, long bytesDown,
      Map<String, Long> requests) {
    Counts minus(Counts before) {
      Map<String, Long> r = new TreeMap<>(requests);
      before.requests.forEach((k, v) -> r.merge(k, -v, Long::sum));
      r.values().removeIf(v -> v == 0);
      return new Counts(connections - before.connections, turns - before.turns,
          bytesUp - before.bytesUp, bytesDown - before.bytesDown, Map.copyOf(r));
    }

    long requestCount() {
      return requests.values().stream().mapToLong(Long::longValue).sum();
    }
  }

  private synchronized void onRequest(String kind, long nanos) {
    requests.merge(kind, 1L, Long::sum);
    sent.add(new Sent(nanos, kind));
  }

  /** The requests sent since {@code sinceNanos}, in order. */
  synchronized java.util.List<Sent> sentSince(long sinceNanos) {
    return sent.stream().filter(r -> r.nanos() >= sinceNanos).toList();
  }

  /** A request line as a kind: method and the path's last two segments, digits folded. */
  static String kindOf(String method, String uri) {
    String path = uri.replaceFirst("^https?://[^/]+", "");
    String query = "";
    int q = path.indexOf('?');
    if (q >= 0) {
      query = path.substring(q).contains("service=git-upload-pack") ? "?service=git-upload-pack"
          : path.substring(q).contains("service=git-receive-pack") ? "?service=git-receive-pack"
          : "";
      path = path.substring(0, q);
    }
    String[] parts = path.replaceAll("/[0-9]+(?=/|$)", "/N").split("/");
    String tail = parts.length >= 2 ? parts[parts.length - 2] + "/" + parts[parts.length - 1]
        : path;
    if (tail.endsWith(".git/info/refs") || tail.startsWith("info/")
        || tail.endsWith("/git-upload-pack") || tail.endsWith("/git-receive-pack")) {
      tail = parts[parts.length - 1].equals("refs") ? "info/refs" : parts[parts.length - 1];
    }
    return method + " " + tail + query;
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        long opened = System.nanoTime();
        connections.incrementAndGet();
        Socket upstream = new Socket();
        upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), target));
        client.setTcpNoDelay(true);
        upstream.setTcpNoDelay(true);
        Relay relay = new Relay(client, upstream);
        // the handshake: the first byte leaves a round trip after connect (SYN, SYN-ACK)
        relay.pump(client, upstream, up, opened + 2 * oneWayNanos, true);
        relay.pump(upstream, client, down, 0, false);
      } catch (IOException e) {
        if (server.isClosed()) {
          return;
        }
      }
    }
  }

  /** One direction of the link: when its wire is next free, and what crossed it. */
  private static final class Direction {
    private final double nanosPerByte;
    private long nextFree;
    final AtomicLong bytes = new AtomicLong();

    Direction(double nanosPerByte) {
      this.nanosPerByte = nanosPerByte;
    }

    /** When {@code n} bytes read at {@code now} have left the wire (before the delay). */
    synchronized long send(long now, int n) {
      bytes.addAndGet(n);
      nextFree = Math.max(now, nextFree) + (long) (n * nanosPerByte);
      return nextFree;
    }
  }

  private record Chunk(byte[] bytes, long release) {}

  private static final Chunk END = new Chunk(new byte[0], 0);

  /** One relayed connection: two pumps, each a reader and a writer with a bounded queue. */
  private final class Relay {
    private final Socket client;
    private final Socket upstream;
    private volatile boolean answered = true;
    private final java.util.concurrent.atomic.AtomicInteger open =
        new java.util.concurrent.atomic.AtomicInteger(2);

    Relay(Socket client, Socket upstream) {
      this.client = client;
      this.upstream = upstream;
    }

    void pump(Socket from, Socket to, Direction wire, long notBefore, boolean clientSide) {
      BlockingQueue<Chunk> queue = new ArrayBlockingQueue<>(QUEUE);
      Thread reader = new Thread(() -> read(from, wire, notBefore, clientSide, queue),
          "shaped-link-read");
      Thread writer = new Thread(() -> write(to, queue), "shaped-link-write");
      reader.setDaemon(true);
      writer.setDaemon(true);
      reader.start();
      writer.start();
    }

    private void read(Socket from, Direction wire, long notBefore, boolean clientSide,
        BlockingQueue<Chunk> queue) {
      byte[] buf = new byte[CHUNK];
      try (InputStream in = from.getInputStream()) {
        int n;
        while ((n = in.read(buf)) > 0) {
          long now = System.nanoTime();
          if (clientSide) {
            onClientBytes(buf, n, now);
          } else {
            answered = true;
          }
          long release = Math.max(wire.send(now, n), notBefore) + oneWayNanos;
          queue.put(new Chunk(Arrays.copyOf(buf, n), release));
        }
      } catch (IOException ignored) {
        // the peer closed or reset
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        try {
          queue.put(END);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }

    private void onClientBytes(byte[] buf, int n, long now) {
      if (answered) {
        answered = false;
        turns.incrementAndGet();
      }
      Matcher m = REQUEST_LINE.matcher(
          new String(buf, 0, Math.min(n, 1024), StandardCharsets.ISO_8859_1));
      if (m.find()) {
        onRequest(kindOf(m.group(1), m.group(2)), now);
      }
    }

    private void write(Socket to, BlockingQueue<Chunk> queue) {
      try {
        OutputStream out = to.getOutputStream();
        while (true) {
          Chunk c = queue.take();
          if (c == END) {
            if (open.decrementAndGet() == 0) {
              closeBoth();
            } else {
              to.shutdownOutput();
            }
            return;
          }
          long wait;
          while ((wait = c.release() - System.nanoTime()) > 0) {
            LockSupport.parkNanos(wait);
          }
          out.write(c.bytes());
          out.flush();
        }
      } catch (IOException | InterruptedException e) {
        closeBoth();
      }
    }

    private void closeBoth() {
      Platform.closeQuietly(client, upstream);
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
  }
}
