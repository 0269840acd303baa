package dev.pushgate.appliance.logging;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import org.junit.jupiter.api.Test;

class LogTimeTest {
  /** What logback's {@code %d} wrote with the appliance's pattern. */
  private static final DateTimeFormatter LOGBACK =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSXXX");

  @Test
  void writesWhatTheDatePatternWroteInEveryZoneAndAcrossOffsetChanges() {
    for (String zone : new String[] {"UTC", "Europe/Berlin", "Asia/Kolkata", "America/St_Johns"}) {
      ZoneId id = ZoneId.of(zone);
      LogTime time = new LogTime(id);
      // Berlin leaves summer time at 01:00 UTC on 2026-10-25: the seconds around it, each
      // millisecond pattern in them, and instants before 1970.
      long change = Instant.parse("2026-10-25T01:00:00Z").toEpochMilli();
      for (long t = change - 2_500; t < change + 2_500; t += 7) {
        assertThat(time.format(t)).as(zone).isEqualTo(LOGBACK.format(
            ZonedDateTime.ofInstant(Instant.ofEpochMilli(t), id)));
      }
      for (long t : new long[] {0, 1, 999, 1000, -1, -999, -1001, 1_733_450_000_042L}) {
        assertThat(time.format(t)).as(zone).isEqualTo(LOGBACK.format(
            ZonedDateTime.ofInstant(Instant.ofEpochMilli(t), id)));
      }
    }
  }

  @Test
  void writesUtcAsZ() {
    assertThat(new LogTime(ZoneId.of("UTC")).format(
        Instant.parse("2026-12-06T02:07:05.009Z").toEpochMilli()))
        .isEqualTo("2026-12-06T02:07:05.009Z");
  }
}
