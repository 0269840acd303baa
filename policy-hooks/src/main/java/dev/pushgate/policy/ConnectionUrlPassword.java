package dev.pushgate.policy;

import com.google.re2j.Pattern;
import java.util.List;

/**
 * pushgate's own secret detector, beside gitleaks' rules: a password in the user information of
 * a URL ({@code postgres://app:s3cr3t@db.example.com/app}, {@code redis://:pass@cache},
 * {@code https://user:token@host}), whatever the scheme. Gitleaks has no such rule (its generic
 * rules look for assignments to names like {@code password}); GitHub finds these with its
 * AI-based "generic password" scanning. A placeholder is not a secret: a password that is a
 * variable ({@code ${DB_PASSWORD}}, {@code $DB_PASSWORD}, {@code $(…)}, {@code %(…)s}, {@code
 * {…}}), masked ({@code ****}, {@code xxxx}, {@code ...}) or a word people write for one
 * ({@code password}, {@code secret}, {@code changeme}, …); nor is a URL whose host is this
 * machine ({@code localhost}, {@code 127.0.0.1}, {@code [::1]}): its password opens a database
 * the developer runs, which a push cannot expose. Matched by RE2/J, in time linear in the text.
 */
final class ConnectionUrlPassword {
  /** The detector's id, in refusals and in a content rule's {@code secrets}. */
  static final String ID = "connection-url-password";

  /**
   * Scheme, {@code ://}, user (may be empty), {@code :}, password (group 1: no {@code @}, {@code
   * /} or space, as RFC 3986 user information; it may hold {@code :}), {@code @}, then the host
   * and port (group 2) up to the path. The host part may hold another {@code @}: a URL's user
   * information ends at its last one, so in {@code u:pw@localhost@db.example.com} the host is
   * {@code db.example.com}. Quotes, angle brackets and backquotes end a URL in code and markup.
   */
  private static final String REGEX = "(?i)\\b[a-z][a-z0-9+.-]{0,30}://"
      + "[^\\s:/?#@'\"<>`\\\\]{0,256}:([^\\s/?#@'\"<>`\\\\]{1,256})@"
      + "([^\\s/?#'\"<>`\\\\),;]{1,256})";

  /** Placeholders, judged on the password alone (gitleaks' target "secret"). */
  private static final List<Pattern> PLACEHOLDERS = List.of(Pattern.compile("(?i)^(?:"
      + "\\$\\{[^}]*\\}|\\$\\([^)]*\\)|\\$[a-z_][a-z0-9_]*|%\\([^)]*\\)s|%s|\\{+[^}]*\\}+"
      + "|%[a-z_][a-z0-9_]*%|\\*+|x+|\\.+|-+|_+"
      + "|pass|passwd|password|pwd|secret|changeme|change_me|redacted|example|dummy|placeholder"
      + "|your[_-]?password|my[_-]?password|db[_-]?password|<[^>]*>)$"));

  /**
   * Hosts on this machine, with or without a port, judged on the whole match (gitleaks' target
   * "match"): the host after the match's last {@code @}.
   */
  private static final List<Pattern> LOOPBACK = List.of(Pattern.compile(
      "(?i)@(?:localhost|127(?:\\.[0-9]{1,3}){3}|\\[::1\\]|\\[0:0:0:0:0:0:0:1\\])(?::[0-9]{1,5})?$"));

  static final SecretDetector DETECTOR = new SecretDetector(ID,
      "A password in the user information of a URL (a database, cache, broker or HTTP URL).",
      Pattern.compile(REGEX), null, SecretDetectors.javaPrefilter(REGEX), null, 1, 0,
      List.of("://"), List.of(), List.of(
          new SecretDetector.Allowlist(PLACEHOLDERS, SecretDetector.Target.SECRET, List.of(),
              List.of(), false),
          new SecretDetector.Allowlist(LOOPBACK, SecretDetector.Target.MATCH, List.of(),
              List.of(), false)));

  private ConnectionUrlPassword() {}
}
