package dev.pushgate.gateway;

import dev.pushgate.types.UntrustedText;

/**
 * Renders every refusal the same way, on one line ({@link UntrustedText#oneLine}), as git shows
 * it to the person pushing.
 */
final class Refusals {
  static final String PREFIX = "Control Center policy: ";

  private Refusals() {}

  static String render(String why) {
    String line = UntrustedText.oneLine(why);
    return PREFIX + (line.isEmpty() ? "refused" : line);
  }
}
