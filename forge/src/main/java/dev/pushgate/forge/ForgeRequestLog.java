package dev.pushgate.forge;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/**
 * The last requests the forge's repository API and its git endpoints answered (a git request's
 * path is {@code git /<owner>/<name>.git/...}), with the credential each presented,
 * named by its SHA-256 (the form {@code forge_tokens.hash} stores): a test aid, so an end-to-end
 * test can show that the upstream saw the real installation token and never the run's sentinel.
 * Bounded; in memory only; holds no token and no request body.
 */
final class ForgeRequestLog {
  /**
   * One request. {@code credential} is {@code installation-token} (a live token of the forge),
   * {@code unknown-token} (a token the forge did not issue, or one revoked or expired) or {@code
   * none}; {@code tokenSha256} is null for none.
   */
  record Entry(Instant at, String method, String path, String credential, String tokenSha256,
      int status) {}

  static final int CAPACITY = 1000;

  private final Deque<Entry> entries = new ArrayDeque<>();

  synchronized void add(Entry e) {
    if (entries.size() == CAPACITY) {
      entries.removeFirst();
    }
    entries.addLast(e);
  }

  /** Oldest first. */
  synchronized List<Entry> entries() {
    return List.copyOf(entries);
  }
}
