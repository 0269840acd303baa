package dev.pushgate.appliance.logging;

import ch.qos.logback.classic.pattern.ClassicConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;

/**
 * {@code %time}: the event's time as {@code %d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX}} writes it, in the
 * system's zone, with the text up to the second and the offset formatted once per second.
 * logback's date converter reuses its text only within one millisecond, so each line (three per
 * push) ran {@link DateTimeFormatter} whole: a third of a log line's CPU (docs/benchmarks.md). A
 * zone's offset changes only at a whole second, so a second's offset is every millisecond's.
 */
public final class LogTime extends ClassicConverter {
  private static final DateTimeFormatter SECOND =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.");
  private static final DateTimeFormatter OFFSET = DateTimeFormatter.ofPattern("XXX");

  private final ZoneId zone;
  /** The second last formatted, its text up to the millis, and its offset. */
  private volatile Second last = new Second(Long.MIN_VALUE, "", "");

  private record Second(long epochSecond, String upToMillis, String offset) {}

  public LogTime() {
    this(ZoneId.systemDefault());
  }

  LogTime(ZoneId zone) {
    this.zone = zone;
  }

  @Override
  public String convert(ILoggingEvent event) {
    return format(event.getTimeStamp());
  }

  String format(long epochMillis) {
    long second = Math.floorDiv(epochMillis, 1000L);
    Second s = last;
    if (s.epochSecond() != second) {
      ZonedDateTime t = Instant.ofEpochSecond(second).atZone(zone);
      s = new Second(second, SECOND.format(t), OFFSET.format(t));
      last = s;
    }
    int millis = (int) Math.floorMod(epochMillis, 1000L);
    StringBuilder out = new StringBuilder(s.upToMillis().length() + 3 + s.offset().length());
    out.append(s.upToMillis());
    if (millis < 100) {
      out.append('0');
    }
    if (millis < 10) {
      out.append('0');
    }
    return out.append(millis).append(s.offset()).toString();
  }
}
