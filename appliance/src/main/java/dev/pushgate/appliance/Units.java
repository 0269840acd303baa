package dev.pushgate.appliance;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/** Durations ({@code 90s}, {@code 10m}, {@code 8h}, {@code 7d}) and sizes ({@code 512m}, {@code 2g}). */
final class Units {
  private static final Pattern AMOUNT = Pattern.compile("([0-9]+)([a-zA-Z]*)");

  private Units() {}

  static Duration duration(String text) {
    Matcher m = AMOUNT.matcher(text.strip());
    if (!m.matches()) {
      throw new IllegalArgumentException("not a duration: '" + text + "' (use 90s, 10m, 8h or 7d)");
    }
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2).toLowerCase(Locale.ROOT)) {
      case "ms" -> Duration.ofMillis(n);
      case "s", "" -> Duration.ofSeconds(n);
      case "m" -> Duration.ofMinutes(n);
      case "h" -> Duration.ofHours(n);
      case "d" -> Duration.ofDays(n);
      default -> throw new IllegalArgumentException(
          "not a duration: '" + text + "' (use 90s, 10m, 8h or 7d)");
    };
  }

  static long bytes(String text) {
    Matcher m = AMOUNT.matcher(text.strip());
    if (!m.matches()) {
      throw new IllegalArgumentException("not a size: '" + text + "' (use 500k, 100m or 2g)");
    }
    long n = Long.parseLong(m.group(1));
    long unit = switch (m.group(2).toLowerCase(Locale.ROOT)) {
      case "", "b" -> 1L;
      case "k", "kb", "kib" -> 1L << 10;
      case "m", "mb", "mib" -> 1L << 20;
      case "g", "gb", "gib" -> 1L << 30;
      default -> throw new IllegalArgumentException(
          "not a size: '" + text + "' (use 500k, 100m or 2g)");
    };
    return Math.multiplyExact(n, unit);
  }

  static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      return duration(value);
    }
  }

  static final class SizeConverter implements CommandLine.ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
      return bytes(value);
    }
  }
}
