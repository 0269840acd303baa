package dev.pushgate.appliance.logging;

import java.util.regex.Pattern;

/**
 * The one place where secrets are cut out of text bound for a log: GitHub tokens of every
 * prefix, run credentials, bearer and basic credentials, credentials in URLs, and PEM key blocks.
 * Everything the appliance logs goes through it (see the logback configuration).
 */
public final class Redaction {
  public static final String MASK = "[REDACTED]";

  private static final Pattern[] SECRETS = {
    Pattern.compile("-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(-----END [A-Z ]*PRIVATE KEY-----|$)",
        Pattern.DOTALL),
    Pattern.compile("\\b(gh[pousr]|github_pat)_[A-Za-z0-9_]{16,}"),
    Pattern.compile("\\bpgr_[A-Za-z0-9_-]{16,}"),
    Pattern.compile("(?i)(?<=\\b(bearer|basic|token) )[A-Za-z0-9._~+/=-]{12,}"),
    Pattern.compile("(?i)(?<=://)[^/@\\s:]+:[^/@\\s]+(?=@)"),
    Pattern.compile("\\beyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}"),
  };

  private Redaction() {}

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
