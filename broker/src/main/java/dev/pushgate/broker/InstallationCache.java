package dev.pushgate.broker;

import dev.pushgate.types.RepoSlug;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which installation serves which repository. Found installations are kept ten minutes; "not
 * installed" thirty seconds, so a fresh install is noticed quickly but a loop of failing launches
 * does not hammer GitHub. Apart from those, the installation id last seen for a repository is
 * kept until GitHub refuses it ({@link #lastSeen}): a mint uses it without asking GitHub again,
 * which would put a round trip before every mint that comes more than ten minutes after the last.
 */
final class InstallationCache {
  static final Duration FOUND_FOR = Duration.ofMinutes(10);
  static final Duration MISSING_FOR = Duration.ofSeconds(30);
  private static final int MAX_ENTRIES = 10_000;

  /** Either an installation id, or the NOT_INSTALLED answer to repeat. */
  record Entry(long installationId, String missingMessage, String requestId, Instant until) {
    boolean installed() {
      return missingMessage == null;
    }
  }

  private final Clock clock;
  private final Map<String, Entry> entries = new ConcurrentHashMap<>();
  private final Map<String, Long> lastSeen = new ConcurrentHashMap<>();

  InstallationCache(Clock clock) {
    this.clock = clock;
  }

  Entry get(RepoSlug repo) {
    Entry e = entries.get(repo.key());
    if (e == null) {
      return null;
    }
    if (!clock.instant().isBefore(e.until())) {
      entries.remove(repo.key(), e);
      return null;
    }
    return e;
  }

  void found(RepoSlug repo, long installationId) {
    put(repo, new Entry(installationId, null, null, clock.instant().plus(FOUND_FOR)));
    if (lastSeen.size() >= MAX_ENTRIES) {
      lastSeen.clear(); // each is looked up again once: cheaper than a bound per entry
    }
    lastSeen.put(repo.key(), installationId);
  }

  void missing(RepoSlug repo, String message, String requestId) {
    put(repo, new Entry(0, message, requestId, clock.instant().plus(MISSING_FOR)));
    lastSeen.remove(repo.key());
  }

  /** The installation id last found for {@code repo}, however long ago, until it is forgotten. */
  OptionalLong lastSeen(RepoSlug repo) {
    Long id = lastSeen.get(repo.key());
    return id == null ? OptionalLong.empty() : OptionalLong.of(id);
  }

  void forget(RepoSlug repo) {
    entries.remove(repo.key());
    lastSeen.remove(repo.key());
  }

  private void put(RepoSlug repo, Entry entry) {
    if (entries.size() >= MAX_ENTRIES) {
      Instant now = clock.instant();
      entries.values().removeIf(e -> !now.isBefore(e.until()));
      if (entries.size() >= MAX_ENTRIES) {
        entries.clear();
      }
    }
    entries.put(repo.key(), entry);
  }
}
