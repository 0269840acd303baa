package dev.pushgate.broker;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Captures what slf4j-simple writes (it looks System.err up on every line, see
 * simplelogger.properties) while still echoing it to the real stderr.
 */
final class LogCapture implements AutoCloseable {
  private final PrintStream original = System.err;
  private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

  LogCapture() {
    System.setErr(new PrintStream(new TeeStream(original, captured), true, StandardCharsets.UTF_8));
  }

  String text() {
    System.err.flush();
    synchronized (captured) {
      return captured.toString(StandardCharsets.UTF_8);
    }
  }

  @Override
  public void close() {
    System.err.flush();
    System.setErr(original);
  }

  private static final class TeeStream extends java.io.OutputStream {
    private final PrintStream echo;
    private final ByteArrayOutputStream sink;

    TeeStream(PrintStream echo, ByteArrayOutputStream sink) {
      this.echo = echo;
      this.sink = sink;
    }

    @Override
    public void write(int b) {
      echo.write(b);
      synchronized (sink) {
        sink.write(b);
      }
    }

    @Override
    public void write(byte[] b, int off, int len) {
      echo.write(b, off, len);
      synchronized (sink) {
        sink.write(b, off, len);
      }
    }
  }
}
