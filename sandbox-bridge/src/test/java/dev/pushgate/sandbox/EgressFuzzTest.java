package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.pushgate.types.UntrustedText;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Coverage-guided fuzzing of the egress host matcher and its patterns (docs/fuzzing.md). */
class EgressFuzzTest {
  private static final EgressLists EMBEDDED = EgressLists.embedded();
  // the baseline is left out: it is fixed, and parsing it on every run would slow fuzzing down
  private static final EgressLists LISTS =
      new EgressLists(List.of(), EMBEDDED.github(), EMBEDDED.deny());
  private static final EgressPolicy DENY_ONLY =
      EgressPolicy.resolve(new EgressLists(List.of(), List.of(), LISTS.deny()), true, List.of());
  private static final List<HostPattern> DENY =
      LISTS.deny().stream().map(HostPattern::parse).toList();

  /**
   * The input is UTF-8 lines: the host a connection asks for, then the spec's allowlist entries.
   * Deciding never throws and gives one line; a host the deny list covers is never allowed,
   * whatever the allowlist; an allowed host matches the rule named; with the network off nothing is
   * allowed; canonical spelling is stable.
   */
  @FuzzTest(maxDuration = "2m")
  void theDenyListWinsWhateverTheAllowlist(byte[] input) {
    List<String> lines = Arrays.asList(new String(input, StandardCharsets.UTF_8).split("\n", -1));
    String host = lines.get(0);
    List<String> allow = new ArrayList<>();
    for (String entry : lines.subList(1, lines.size())) {
      try {
        HostPattern.parse(entry);
        allow.add(entry);
      } catch (IllegalArgumentException e) {
        // refusals are fuzzed by patternsAreRefusedClearlyOrReadBackTheSame
      }
    }
    EgressPolicy policy = EgressPolicy.resolve(LISTS, true, allow);
    EgressDecision d = policy.allows(host);
    assertThat(d.reason()).doesNotContain("\n", "\r");
    EgressDecision denied = DENY_ONLY.allows(host);
    if (denied.basis() == EgressDecision.Basis.DENY_LIST) {
      assertThat(d.basis()).as(d.reason()).isEqualTo(EgressDecision.Basis.DENY_LIST);
    }
    if (d.basis() != EgressDecision.Basis.MALFORMED_HOST) {
      assertThat(Hosts.canonical(d.host())).isEqualTo(d.host());
    }
    if (d.allowed()) {
      assertThat(denied.basis()).isEqualTo(EgressDecision.Basis.NOT_ALLOWLISTED);
      assertThat(HostPattern.parse(d.rule().pattern()).matches(d.host())).isTrue();
      for (HostPattern deny : DENY) {
        assertThat(deny.matches(d.host())).as("%s", deny).isFalse();
      }
    }
    assertThat(EgressPolicy.resolve(LISTS, false, allow).allows(host).allowed()).isFalse();
  }

  /**
   * An allow or deny entry is refused with a plain {@link IllegalArgumentException} whose message
   * is one short line, or it is kept in a canonical spelling that reads back as itself, and a list
   * file holding it reads the same.
   */
  @FuzzTest(maxDuration = "2m")
  void patternsAreRefusedClearlyOrReadBackTheSame(byte[] input) {
    String entry = new String(input, StandardCharsets.UTF_8);
    HostPattern pattern;
    try {
      pattern = HostPattern.parse(entry);
    } catch (IllegalArgumentException e) {
      assertThat(e).isExactlyInstanceOf(IllegalArgumentException.class);
      assertThat(e.getMessage()).isNotBlank().doesNotContain("\n", "\r").hasSizeLessThan(320);
      assertThat(UntrustedText.hasControl(e.getMessage())).isFalse();
      return;
    }
    String canonical = pattern.toString();
    assertThat(HostPattern.parse(canonical).toString()).isEqualTo(canonical);
    assertThat(new EgressRule(entry, EgressRule.Source.EGRESS_ALLOWLIST).pattern())
        .isEqualTo(canonical);
    if (entry.indexOf('#') < 0 && entry.strip().equals(entry)) {
      assertThat(EgressLists.parse(entry + "\n", "list.txt")).containsExactly(entry);
    }
  }
}
