package dev.pushgate.types;

import java.util.regex.Pattern;

/**
 * The one place where secrets are cut out of text bound for a log: GitHub tokens of every
 * prefix, run credentials, bearer and basic credentials, credentials in URLs (as user info and as
 * {@code password=} or {@code sslpassword=} query parameters), and PEM key blocks.
 * Everything the appliance logs goes through it (see the logback configuration).
 */
public final class Redaction {
  public static final String MASK = "[REDACTED]";

  /**
   * A {@code password=} or {@code sslpassword=} query parameter's value, up to the next
   * {@code &key=}: an unencoded '&' in the password must not leave the rest of it showing.
   */
  private static final Pattern QUERY_PASSWORD = Pattern.compile(
      "(?i)(?<=[?&;](ssl)?password=)[^\\s]*?(?=&[A-Za-z][A-Za-z0-9_.-]*=|\\s|$)");
  /** In a text known to be one URL: its user name, then everything up to its last '@'. */
  private static final Pattern URL_USER_INFO =
      Pattern.compile("^([A-Za-z][A-Za-z0-9+.:-]*://[^:/?#@]*):.*@");
  /**
   * user:password@ in any URL, up to the last '@' of the URL: passwords (and user names such as
   * Azure's user@server) hold unencoded '@', '/', '#' or '?' often enough.
   */
  private static final Pattern USER_INFO = Pattern.compile("(?<=://)[^\\s/?#:]*:[^\\s]*(?=@)");

  /**
   * A secret's pattern, with texts one of which every match needs in the text (its lookbehind
   * included), and for the credential after a scheme word how many credential characters must
   * follow it: a text without them is not searched. Every log line is redacted and most hold no
   * secret, but the searches cost a short line tens of µs (the lookbehinds are tried at every
   * character), more while the JIT has not optimised them; "write token for acme/…" holds a
   * scheme word, but no credential after it.
   */
  private record SecretPattern(Pattern pattern, boolean ignoreCase, int credentialAfter,
      String... needs) {
    SecretPattern(Pattern pattern, String... needs) {
      this(pattern, false, 0, needs);
    }

    boolean mayMatch(String text) {
      // (?i) without UNICODE_CASE folds ASCII letters only; lower-casing the text folds at least
      // those, so a needle is found wherever the pattern could match.
      String in = ignoreCase ? text.toLowerCase(java.util.Locale.ROOT) : text;
      for (String need : needs) {
        for (int at = in.indexOf(need); at >= 0; at = in.indexOf(need, at + 1)) {
          if (credentialFollows(in, at + need.length())) {
            return true;
          }
        }
      }
      return false;
    }

    private boolean credentialFollows(String text, int from) {
      int n = 0;
      while (n < credentialAfter && from + n < text.length()
          && CREDENTIAL_CHARS.indexOf(text.charAt(from + n)) >= 0) {
        n++;
      }
      return n >= credentialAfter;
    }
  }

  /** What the scheme pattern takes for a credential, {@code [A-Za-z0-9._~+/=-]}. */
  private static final String CREDENTIAL_CHARS =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~+/=-";

  private static final SecretPattern[] SECRETS = {
    // A key block: the header followed by key material (base64, or an encrypted key's
    // Proc-Type line); a message that only names the header, "(expected a line -----BEGIN …)",
    // keeps it.
    new SecretPattern(
        Pattern.compile("-----BEGIN [A-Z ]*PRIVATE KEY-----(?=\\s*[A-Za-z0-9+/=:-]{4,})"
            + ".*?(-----END [A-Z ]*PRIVATE KEY-----|$)", Pattern.DOTALL), "-----BEGIN "),
    new SecretPattern(Pattern.compile("\\b(gh[pousr]|github_pat)_[A-Za-z0-9_]{16,}"),
        "gh", "github_pat"),
    new SecretPattern(Pattern.compile("\\bpgr_[A-Za-z0-9_-]{16,}"), "pgr_"),
    new SecretPattern(Pattern.compile("(?i)(?<=\\b(bearer|basic|token) )[A-Za-z0-9._~+/=-]{12,}"),
        true, 12, "bearer ", "basic ", "token "),
    // Before the user-info pattern: a password with an '@' in a query would otherwise be cut
    // there and its tail left showing.
    new SecretPattern(QUERY_PASSWORD, true, 0, "password="),
    new SecretPattern(USER_INFO, "://"),
    new SecretPattern(
        Pattern.compile("\\beyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}"), "eyJ"),
  };

  private Redaction() {}

  /**
   * One URL, as it may be printed: {@code scheme://user:***@host…}, the password cut up to the
   * URL's last '@' and out of its query; the user name stays, unless it cannot be told apart.
   */
  public static String redactUrl(String url) {
    if (url == null || url.isEmpty()) {
      return url;
    }
    String out = QUERY_PASSWORD.matcher(url).replaceAll("***");
    java.util.regex.Matcher m = URL_USER_INFO.matcher(out);
    return m.find() ? m.replaceFirst("$1:***@") : USER_INFO.matcher(out).replaceAll("***");
  }

  public static String redact(String text) {
    if (text == null || text.isEmpty()) {
      return text;
    }
    String out = text;
    for (SecretPattern secret : SECRETS) {
      if (secret.mayMatch(out)) {
        out = secret.pattern().matcher(out).replaceAll(MASK);
      }
    }
    return out;
  }
}
