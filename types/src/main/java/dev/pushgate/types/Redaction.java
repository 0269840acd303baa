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

  private static final Pattern[] SECRETS = {
    // A key block: the header followed by key material (base64, or an encrypted key's
    // Proc-Type line); a message that only names the header, "(expected a line -----BEGIN …)",
    // keeps it.
    Pattern.compile("-----BEGIN [A-Z ]*PRIVATE KEY-----(?=\\s*[A-Za-z0-9+/=:-]{4,})"
        + ".*?(-----END [A-Z ]*PRIVATE KEY-----|$)", Pattern.DOTALL),
    Pattern.compile("\\b(gh[pousr]|github_pat)_[A-Za-z0-9_]{16,}"),
    Pattern.compile("\\bpgr_[A-Za-z0-9_-]{16,}"),
    Pattern.compile("(?i)(?<=\\b(bearer|basic|token) )[A-Za-z0-9._~+/=-]{12,}"),
    // Before the user-info pattern: a password with an '@' in a query would otherwise be cut
    // there and its tail left showing.
    QUERY_PASSWORD,
    USER_INFO,
    Pattern.compile("\\beyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}"),
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
    for (Pattern p : SECRETS) {
      out = p.matcher(out).replaceAll(MASK);
    }
    return out;
  }
}
