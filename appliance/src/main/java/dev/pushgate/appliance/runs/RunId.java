package dev.pushgate.appliance.runs;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * Run ids: {@code run_} and 24 hex digits, made here and nowhere else. An id read back (from the
 * ledger, which anyone who can write the database can fill, or from a command line) must have
 * this form before it names a file or a request: a run's directory is {@code runs/<id>}.
 */
public final class RunId {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final Pattern FORM = Pattern.compile("run_[0-9a-f]{24}");

  private RunId() {}

  static String next() {
    byte[] b = new byte[12];
    RANDOM.nextBytes(b);
    return "run_" + HexFormat.of().formatHex(b);
  }

  /** Whether {@code id} is an id {@link #next} could have made: one plain file name. */
  public static boolean isWellFormed(String id) {
    return id != null && FORM.matcher(id).matches();
  }
}
