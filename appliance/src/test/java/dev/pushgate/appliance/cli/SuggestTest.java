package dev.pushgate.appliance.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SuggestTest {
  private static final List<String> KNOWN = List.of("approval-timeout", "approver-poll-grace",
      "port", "bind", "run-ttl", "runtime-dir");

  @Test
  void namesTheClosestWithinTwoEdits() {
    assertThat(Suggest.closest("aproval-timeout", KNOWN)).contains("approval-timeout");
    assertThat(Suggest.closest("prot", KNOWN)).contains("port");
    assertThat(Suggest.closest("run-tll", KNOWN)).contains("run-ttl");
    assertThat(Suggest.closest("APPROVAL-TIMEOUT", KNOWN)).contains("approval-timeout");
  }

  @Test
  void namesTheOnlyNameACutShortOneStarts() {
    assertThat(Suggest.closest("approval", KNOWN)).contains("approval-timeout");
    assertThat(Suggest.closest("runtime", KNOWN)).contains("runtime-dir");
  }

  @Test
  void namesNothingFarOrAmbiguous() {
    assertThat(Suggest.closest("database", KNOWN)).isEmpty();
    assertThat(Suggest.closest("appro", KNOWN)).isEmpty(); // approval-… or approver-…
    assertThat(Suggest.hint("zzzz", KNOWN)).isEmpty();
  }

  @Test
  void countsEdits() {
    assertThat(Suggest.edits("kitten", "sitting")).isEqualTo(3);
    assertThat(Suggest.edits("", "abc")).isEqualTo(3);
    assertThat(Suggest.edits("same", "same")).isZero();
  }
}
