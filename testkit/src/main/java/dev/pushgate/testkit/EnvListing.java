package dev.pushgate.testkit;

import java.util.LinkedHashMap;
import java.util.Map;

/** The environment a sandboxed command saw, read back from what {@code env} printed. */
public final class EnvListing {
  private EnvListing() {}

  /**
   * Each {@code NAME=value} line of {@code envOutput}, in order; a line without {@code =} (the
   * rest of a value that held a newline) is left out.
   */
  public static Map<String, String> parse(String envOutput) {
    Map<String, String> variables = new LinkedHashMap<>();
    for (String line : envOutput.split("\n")) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        variables.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    return variables;
  }
}
