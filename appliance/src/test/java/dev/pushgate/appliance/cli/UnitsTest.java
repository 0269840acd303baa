package dev.pushgate.appliance.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class UnitsTest {
  @ParameterizedTest
  @CsvSource({
      "90s, PT1M30S", "10m, PT10M", "8h, PT8H", "7d, PT168H", "250ms, PT0.25S", "45, PT45S",
      "' 5m ', PT5M", "2H, PT2H", "1D, PT24H"})
  void readsDurations(String text, String iso) {
    assertThat(Units.duration(text)).isEqualTo(Duration.parse(iso));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "s", "5 m", "-5s", "1.5h", "5w", "5min", "5sec", "1h30m", "+5s",
      "５s", "5s\n1"})
  void refusesWhatIsNotADuration(String text) {
    assertThatThrownBy(() -> Units.duration(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("not a duration: '" + text + "' (use 90s, 10m, 8h or 7d)");
  }

  @ParameterizedTest
  @CsvSource({
      "100, 100", "100b, 100", "500k, 512000", "1kb, 1024", "1KiB, 1024", "512m, 536870912",
      "100MB, 104857600", "2g, 2147483648", "1gib, 1073741824", "' 2g ', 2147483648"})
  void readsSizes(String text, long bytes) {
    assertThat(Units.bytes(text)).isEqualTo(bytes);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "k", "1t", "1tb", "-1k", "1.5g", "2 g", "1e3", "0x10"})
  void refusesWhatIsNotASize(String text) {
    assertThatThrownBy(() -> Units.bytes(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("not a size: '" + text + "' (use 500k, 100m or 2g)");
  }

  @org.junit.jupiter.api.Test
  void refusesZeroAndWhatOverflows() {
    assertThatThrownBy(() -> Units.duration("0s"))
        .hasMessage("a duration must be more than zero: '0s'");
    assertThatThrownBy(() -> Units.duration("99999999999999999999s"))
        .hasMessage("not a duration: '99999999999999999999s' is too long");
    assertThatThrownBy(() -> Units.duration("9999999999999999d"))
        .hasMessage("not a duration: '9999999999999999d' is too long");
    assertThatThrownBy(() -> Units.bytes("0")).hasMessage("a size must be more than zero: '0'");
    assertThatThrownBy(() -> Units.bytes("9999999999g"))
        .hasMessage("not a size: '9999999999g' is too large");
    assertThatThrownBy(() -> Units.bytes("99999999999999999999"))
        .hasMessage("not a size: '99999999999999999999' is too large");
  }

  @ParameterizedTest
  @ValueSource(strings = {"90s", "10m"})
  void thePicocliConverterReadsDurations(String text) throws Exception {
    assertThat(new Units.DurationConverter().convert(text)).isEqualTo(Units.duration(text));
  }

  @ParameterizedTest
  @ValueSource(strings = {"2g", "512m"})
  void thePicocliConverterReadsSizes(String text) throws Exception {
    assertThat(new Units.SizeConverter().convert(text)).isEqualTo(Units.bytes(text));
  }

  @ParameterizedTest
  @CsvSource({"PT1M30S, 90s", "PT10M, 10m", "PT8H, 8h", "PT168H, 7d", "PT0.25S, 250ms",
      "PT25H, 25h", "PT1H1S, 3601s", "PT5M, 5m"})
  void printsDurationsInTheFormItReads(String iso, String text) {
    Duration d = Duration.parse(iso);
    assertThat(Units.format(d)).isEqualTo(text);
    assertThat(Units.duration(Units.format(d))).isEqualTo(d);
  }

  @ParameterizedTest
  @ValueSource(strings = {"1s", "59s", "61s", "1m", "90m", "1h", "23h", "24h", "7d", "1ms",
      "1001ms", "2h", "10s", "300s"})
  void everyPrintedDurationReadsBackToItself(String text) {
    Duration d = Units.duration(text);
    assertThat(Units.duration(Units.format(d))).isEqualTo(d);
  }

  @ParameterizedTest
  @CsvSource({"2147483648, 2g", "536870912, 512m", "512000, 500k", "100, 100", "1025, 1025"})
  void printsSizesInTheFormItReads(long bytes, String text) {
    assertThat(Units.formatBytes(bytes)).isEqualTo(text);
    assertThat(Units.bytes(Units.formatBytes(bytes))).isEqualTo(bytes);
  }

  @org.junit.jupiter.api.Test
  void countsInTheSingularForOneOnly() {
    assertThat(Units.count(1, "credential path")).isEqualTo("1 credential path");
    assertThat(Units.count(0, "credential path")).isEqualTo("0 credential paths");
    assertThat(Units.count(11, "credential path")).isEqualTo("11 credential paths");
  }
}
