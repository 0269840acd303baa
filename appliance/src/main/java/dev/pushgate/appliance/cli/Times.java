package dev.pushgate.appliance.cli;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

/** Instants for people: {@code 2026-12-04 03:45:10Z}, and how far they are from now. */
final class Times {
  private static final DateTimeFormatter AT =
      DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss'Z'").withZone(ZoneOffset.UTC);

  private Times() {}

  static String at(Instant t) {
    return AT.format(t);
  }

  /** An ISO instant as the API gives it, readable; what does not parse is shown as it is. */
  static String at(String iso) {
    try {
      return at(Instant.parse(iso));
    } catch (DateTimeParseException e) {
      return iso;
    }
  }

  /** {@code in 12m}, {@code 3m ago}, {@code now}: to the largest whole unit, as --since takes it. */
  static String relative(Instant t, Instant now) {
    Duration d = Duration.between(now, t);
    long s = Math.abs(d.getSeconds());
    if (s < 1) {
      return "now";
    }
    String amount = s >= 86_400 ? s / 86_400 + "d" : s >= 3_600 ? s / 3_600 + "h"
        : s >= 60 ? s / 60 + "m" : s + "s";
    return d.isNegative() ? amount + " ago" : "in " + amount;
  }

  /** {@code 2026-12-04 03:45:10Z (in 12m)}. */
  static String atAndRelative(String iso, Instant now) {
    try {
      Instant t = Instant.parse(iso);
      return at(t) + " (" + relative(t, now) + ")";
    } catch (DateTimeParseException e) {
      return iso;
    }
  }
}
