package dev.pushgate.gateway;

/** Renders every refusal the same way, on one line, as git shows it to the person pushing. */
final class Refusals {
  static final String PREFIX = "Control Center policy: ";

  private Refusals() {}

  static String render(String why) {
    String line = why.replaceAll("[\\r\\n\\x00-\\x1f\\x7f]+", " ").strip();
    return PREFIX + (line.isEmpty() ? "refused" : line);
  }
}
