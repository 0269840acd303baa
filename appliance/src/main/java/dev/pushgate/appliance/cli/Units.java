package dev.pushgate.appliance.cli;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * Durations ({@code 90s}, {@code 10m}, {@code 8h}, {@code 7d}), sizes ({@code 512m}, {@code 2g})
 * and counts of things.
 */
final class Units {
  private static final Pattern AMOUNT = Pattern.compile("([0-9]+)([a-zA-Z]*)");

  private Units() {}

  static Duration duration(String text) {
    Matcher m = AMOUNT.matcher(text.strip());
    if (!m.matches()) {
      throw new IllegalArgumentException("not a duration: '" + text + "' (use 90s, 10m, 8h or 7d)");
    }
    try {
      long n = Long.parseLong(m.group(1));
      Duration d = switch (m.group(2).toLowerCase(Locale.ROOT)) {
        case "ms" -> Duration.ofMillis(n);
        case "s", "" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        case "h" -> Duration.ofHours(n);
        case "d" -> Duration.ofDays(n);
        default -> throw new IllegalArgumentException(
            "not a duration: '" + text + "' (use 90s, 10m, 8h or 7d)");
      };
      if (d.isZero()) {
        throw new IllegalArgumentException("a duration must be more than zero: '" + text + "'");
      }
      return d;
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException("not a duration: '" + text + "' is too long");
    }
  }

  /**
   * {@code d} as {@link #duration} reads it back: in the largest unit that holds it whole
   * ({@code 90s}, {@code 10m}, {@code 8h}, {@code 7d}, {@code 250ms}).
   */
  static String format(Duration d) {
    long ms = d.toMillis();
    long[] size = {86_400_000L, 3_600_000L, 60_000L, 1_000L};
    String[] unit = {"d", "h", "m", "s"};
    for (int i = 0; i < size.length; i++) {
      if (ms % size[i] == 0) {
        return ms / size[i] + unit[i];
      }
    }
    return ms + "ms";
  }

  /** {@code bytes} as {@link #bytes} reads it back, in the largest unit that holds it whole. */
  static String formatBytes(long bytes) {
    long[] size = {1L << 30, 1L << 20, 1L << 10};
    String[] unit = {"g", "m", "k"};
    for (int i = 0; i < size.length; i++) {
      if (bytes % size[i] == 0) {
        return bytes / size[i] + unit[i];
      }
    }
    return String.valueOf(bytes);
  }

  static long bytes(String text) {
    Matcher m = AMOUNT.matcher(text.strip());
    if (!m.matches()) {
      throw new IllegalArgumentException("not a size: '" + text + "' (use 500k, 100m or 2g)");
    }
    long n;
    try {
      n = Long.parseLong(m.group(1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not a size: '" + text + "' is too large");
    }
    long unit = switch (m.group(2).toLowerCase(Locale.ROOT)) {
      case "", "b" -> 1L;
      case "k", "kb", "kib" -> 1L << 10;
      case "m", "mb", "mib" -> 1L << 20;
      case "g", "gb", "gib" -> 1L << 30;
      default -> throw new IllegalArgumentException(
          "not a size: '" + text + "' (use 500k, 100m or 2g)");
    };
    try {
      long bytes = Math.multiplyExact(n, unit);
      if (bytes == 0) {
        throw new IllegalArgumentException("a size must be more than zero: '" + text + "'");
      }
      return bytes;
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException("not a size: '" + text + "' is too large");
    }
  }

  static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      try {
        return duration(value);
      } catch (IllegalArgumentException e) {
        // picocli prints a TypeConversionException's message alone, any other with its class
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }

  static final class SizeConverter implements CommandLine.ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
      try {
        return bytes(value);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }

  /** {@code n} and the noun, plural unless there is one: "1 credential path", "3 credential paths". */
  static String count(int n, String noun) {
    return n + " " + noun + (n == 1 ? "" : "s");
  }
}
