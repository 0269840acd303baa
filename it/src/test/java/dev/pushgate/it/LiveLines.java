package dev.pushgate.it;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The lines of a running process's output, read on a thread of their own as they come, so that a
 * test waits for the line it expects (an event) while the process goes on.
 */
final class LiveLines {
  /** A bound on a broken build, never the time a line is expected to take. */
  private static final long DEADLINE_MILLIS = 30_000;

  private final List<String> lines = new ArrayList<>();
  private final Thread reader;

  private LiveLines(InputStream stream) {
    reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(
          new InputStreamReader(stream, StandardCharsets.UTF_8))) {
        for (String l; (l = r.readLine()) != null; ) {
          synchronized (lines) {
            lines.add(l);
            lines.notifyAll();
          }
        }
      } catch (Exception ignored) {
        // the process ended
      }
    });
    reader.setDaemon(true);
    reader.start();
  }

  /** Starts reading {@code stream} to its end. */
  static LiveLines of(InputStream stream) {
    return new LiveLines(stream);
  }

  /**
   * The first line that contains {@code text}, waiting for it up to 30 s; past that fails saying
   * that {@code who} never printed it, and what it printed.
   */
  String await(String text, String who) throws InterruptedException {
    long deadline = System.currentTimeMillis() + DEADLINE_MILLIS;
    synchronized (lines) {
      for (long left; (left = deadline - System.currentTimeMillis()) > 0; ) {
        for (String l : lines) {
          if (l.contains(text)) {
            return l;
          }
        }
        lines.wait(Math.min(left, 500));
      }
    }
    throw new AssertionError(who + " never printed '" + text + "':\n" + text());
  }

  /** Waits up to {@code millis} for the stream's end (its process has ended). */
  void awaitEnd(long millis) throws InterruptedException {
    reader.join(millis);
  }

  /** Every line read so far, each ended by a newline as the process printed it. */
  String text() {
    synchronized (lines) {
      StringBuilder text = new StringBuilder();
      lines.forEach(l -> text.append(l).append('\n'));
      return text.toString();
    }
  }
}
