package dev.pushgate.gateway.api;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An upstream over plain HTTP/1.1 on loopback that answers as its {@link Script} says, byte by
 * byte, where a mock server would answer correctly: it can break off an answer, never answer, or
 * keep a connection. It records each request as received and counts the connections it accepted.
 */
final class FakeUpstream implements AutoCloseable {
  /** Writes the answer to {@code request}; returns false to close the connection after it. */
  interface Script {
    boolean answer(Received request, OutputStream out) throws IOException;
  }

  /** A request as it came: its head (request line and headers) and its body. */
  record Received(String head, String body) {
    /** Every value of header {@code name}, case-insensitively, as sent. */
    List<String> header(String name) {
      String prefix = name.toLowerCase(Locale.ROOT) + ":";
      return head.lines().skip(1).filter(l -> l.toLowerCase(Locale.ROOT).startsWith(prefix))
          .map(l -> l.substring(prefix.length()).trim()).toList();
    }
  }

  private final ServerSocket server;
  private final Script script;
  private final AtomicInteger accepted = new AtomicInteger();
  private final List<Received> received = new CopyOnWriteArrayList<>();
  private final List<Socket> open = new CopyOnWriteArrayList<>();

  private FakeUpstream(ServerSocket server, Script script) {
    this.server = server;
    this.script = script;
  }

  static FakeUpstream start(Script script) throws IOException {
    FakeUpstream f = new FakeUpstream(
        new ServerSocket(0, 50, InetAddress.getLoopbackAddress()), script);
    Thread t = new Thread(f::accept, "fake-upstream");
    t.setDaemon(true);
    t.start();
    return f;
  }

  /** Answers {@code status} with {@code headers} and {@code body}, its length declared. */
  static boolean answer(OutputStream out, int status, String headers, String body)
      throws IOException {
    byte[] b = body.getBytes(StandardCharsets.UTF_8);
    out.write(("HTTP/1.1 " + status + " X\r\n" + headers + "Content-Length: " + b.length
        + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
    out.write(b);
    out.flush();
    return true;
  }

  URI base() {
    return URI.create("http://127.0.0.1:" + server.getLocalPort());
  }

  int connectionsAccepted() {
    return accepted.get();
  }

  List<Received> received() {
    return received;
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket s = server.accept();
        accepted.incrementAndGet();
        open.add(s);
        Thread t = new Thread(() -> serve(s), "fake-upstream-connection");
        t.setDaemon(true);
        t.start();
      } catch (IOException e) {
        return;
      }
    }
  }

  private void serve(Socket s) {
    try (s) {
      InputStream in = s.getInputStream();
      while (true) {
        String head = head(in);
        if (head == null) {
          return;
        }
        Received r = new Received(head, new String(in.readNBytes(contentLength(head)),
            StandardCharsets.UTF_8));
        received.add(r);
        if (!script.answer(r, s.getOutputStream())) {
          return;
        }
      }
    } catch (IOException e) {
      // the boundary closed the connection
    }
  }

  private static String head(InputStream in) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    int c;
    while ((c = in.read()) != -1) {
      b.write(c);
      if (b.size() >= 4 && b.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
        return b.toString(StandardCharsets.ISO_8859_1);
      }
    }
    return null;
  }

  private static int contentLength(String head) {
    List<String> v = new Received(head, "").header("Content-Length");
    return v.isEmpty() ? 0 : Integer.parseInt(v.get(0));
  }

  @Override
  public void close() throws IOException {
    server.close();
    for (Socket s : open) {
      s.close();
    }
  }
}
