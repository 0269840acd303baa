package dev.pushgate.approvals.signin;

import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Signed-in approvers' browser sessions, in memory only (a restart signs everyone out). A session
 * ends after {@link #idle} without a request or {@link #absolute} after sign-in, whichever comes
 * first. The cookie's value is looked up by its hash; each session has its own CSRF token.
 */
public final class Sessions {
  public static final Duration DEFAULT_IDLE = Duration.ofMinutes(30);
  public static final Duration DEFAULT_ABSOLUTE = Duration.ofHours(12);
  /** Sessions kept at once; a new one past this ends the oldest. */
  static final int MAX_SESSIONS = 32;

  private final SecureRandom random;
  private final Clock clock;
  private final Duration idle;
  private final Duration absolute;
  private final Map<String, Session> byHash = new LinkedHashMap<>();

  /** A live session. {@code csrf} goes to the page; the id only ever into the cookie. */
  public static final class Session {
    private final String csrf;
    private final Instant created;
    private volatile Instant lastSeen;

    private Session(String csrf, Instant created) {
      this.csrf = csrf;
      this.created = created;
      this.lastSeen = created;
    }

    public String csrf() {
      return csrf;
    }

    /** Compared in constant time. */
    public boolean csrfMatches(String presented) {
      return presented != null && MessageDigest.isEqual(
          csrf.getBytes(java.nio.charset.StandardCharsets.UTF_8),
          presented.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    @Override
    public String toString() {
      return "Session[***]";
    }
  }

  /** The new session's cookie value and the session. */
  public record Started(String id, Session session) {
    @Override
    public String toString() {
      return "Started[***]";
    }
  }

  public Sessions(Clock clock, Duration idle, Duration absolute) {
    this(new SecureRandom(), clock, idle, absolute);
  }

  Sessions(SecureRandom random, Clock clock, Duration idle, Duration absolute) {
    this.random = random;
    this.clock = clock;
    this.idle = idle;
    this.absolute = absolute;
  }

  public Duration absolute() {
    return absolute;
  }

  public synchronized Started start() {
    forgetEnded();
    while (byHash.size() >= MAX_SESSIONS) {
      byHash.remove(byHash.keySet().iterator().next());
    }
    String id = randomText();
    Session s = new Session(randomText(), clock.instant());
    byHash.put(SignInTokens.hash(id), s);
    return new Started(id, s);
  }

  /** The live session of a cookie value, its idle time restarted; empty when none. */
  public synchronized Optional<Session> find(String id) {
    if (id == null || id.isEmpty() || id.length() > 128) {
      return Optional.empty();
    }
    String key = SignInTokens.hash(id);
    Session s = byHash.get(key);
    if (s == null) {
      return Optional.empty();
    }
    if (ended(s, clock.instant())) {
      byHash.remove(key);
      return Optional.empty();
    }
    s.lastSeen = clock.instant();
    return Optional.of(s);
  }

  /** Whether {@code s} is still live, without counting this as use (a stream checks it). */
  public synchronized boolean live(Session s) {
    return byHash.containsValue(s) && !ended(s, clock.instant());
  }

  public synchronized void end(String id) {
    if (id != null) {
      byHash.remove(SignInTokens.hash(id));
    }
  }

  private boolean ended(Session s, Instant now) {
    return !now.isBefore(s.lastSeen.plus(idle)) || !now.isBefore(s.created.plus(absolute));
  }

  private void forgetEnded() {
    Instant now = clock.instant();
    byHash.values().removeIf(s -> ended(s, now));
  }

  private String randomText() {
    byte[] b = new byte[32];
    random.nextBytes(b);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }
}
