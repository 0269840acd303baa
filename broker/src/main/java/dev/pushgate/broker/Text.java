package dev.pushgate.broker;

import java.util.regex.Pattern;

/**
 * What the broker checks in text from GitHub beyond {@link dev.pushgate.types.UntrustedText}: a
 * request id, a header-safe credential, a duration in words.
 */
final class Text {
  private static final Pattern REQUEST_ID = Pattern.compile("[A-Za-z0-9:._-]{1,100}");

  private Text() {}

  /** The request id if it looks like one; anything else is dropped rather than echoed. */
  static String requestId(String header) {
    return header != null && REQUEST_ID.matcher(header).matches() ? header : null;
  }

  /** Whether a credential can travel in an HTTP header as it is. */
  static boolean headerSafe(String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c <= 0x20 || c >= 0x7f) {
        return false;
      }
    }
    return true;
  }

  static String seconds(java.time.Duration d) {
    long ms = d.toMillis();
    return ms % 1000 == 0 ? ms / 1000 + " s" : String.format(java.util.Locale.ROOT, "%.1f s", ms / 1000.0);
  }
}
