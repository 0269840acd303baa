package dev.pushgate.types;

import java.util.Locale;

/**
 * Host names as a client may spell the same host: any case, a trailing dot (the fully qualified
 * form), the default HTTPS port. One function for every side that compares them (the run's
 * egress proxy deciding what to intercept, the API boundary deciding what it answers for), so that
 * a spelling one side takes the other takes too.
 */
public final class HostNames {
  private HostNames() {}

  /** Lower case, without the default port {@code :443} and one trailing dot; "" for null. */
  public static String normalised(String host) {
    String h = host == null ? "" : host.toLowerCase(Locale.ROOT);
    if (h.endsWith(":443")) {
      h = h.substring(0, h.length() - 4);
    }
    if (h.endsWith(".")) {
      h = h.substring(0, h.length() - 1);
    }
    return h;
  }
}
