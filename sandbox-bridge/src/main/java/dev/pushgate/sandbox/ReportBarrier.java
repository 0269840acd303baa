package dev.pushgate.sandbox;

import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A barrier on one name-deny daemon's stream of refusals. The daemon writes a refusal's line
 * before it replies to the call, so before the command can print its error: once the launcher has
 * read a command's error line, a {@code sync N} it then sends comes back as {@code synced N}
 * behind every refusal the daemon reported for it. {@link #passed} completes when that line has
 * been read, which is when the launcher knows whether the error line was the layer's, whatever
 * the load (a timeout only guessed).
 */
final class ReportBarrier {
  private static final Pattern SYNCED = Pattern.compile("synced (\\d{1,18})");

  private final Consumer<String> toDaemon;
  private final NavigableMap<Long, CompletableFuture<Void>> waiting = new TreeMap<>();
  private long next;
  private boolean ended;

  /** @param toDaemon writes a line (with its line break) to the daemon's standard input */
  ReportBarrier(Consumer<String> toDaemon) {
    this.toDaemon = toDaemon;
  }

  /**
   * Completes once every refusal the daemon reported before now has been read from its stream;
   * at once when the stream has ended (nothing more will be read).
   */
  CompletableFuture<Void> passed() {
    CompletableFuture<Void> f = new CompletableFuture<>();
    long id;
    synchronized (this) {
      if (ended) {
        return CompletableFuture.completedFuture(null);
      }
      id = next++;
      waiting.put(id, f);
    }
    toDaemon.accept("sync " + id + "\n");
    return f;
  }

  /** Whether {@code line} of the daemon's stream was a barrier's; passes it and every earlier. */
  boolean read(String line) {
    Matcher m = SYNCED.matcher(line);
    if (!m.matches()) {
      return false;
    }
    pass(Long.parseLong(m.group(1)));
    return true;
  }

  /** The daemon's stream has ended: every barrier is passed. */
  void ended() {
    synchronized (this) {
      ended = true;
    }
    pass(Long.MAX_VALUE);
  }

  private void pass(long upTo) {
    List<CompletableFuture<Void>> passed;
    synchronized (this) {
      NavigableMap<Long, CompletableFuture<Void>> head = waiting.headMap(upTo, true);
      passed = new ArrayList<>(head.values());
      head.clear();
    }
    passed.forEach(f -> f.complete(null));
  }
}
