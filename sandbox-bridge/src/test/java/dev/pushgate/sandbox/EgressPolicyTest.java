package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EgressPolicyTest {
  private static final List<String> EXTRA =
      List.of(
          "*.example.com",
          "api.partner.io",
          "*.bücher.de",
          "[2001:db8::10]",
          "10.1.2.3",
          "svc.*.internal.example.net");

  private final EgressPolicy policy = EgressPolicy.resolve(true, EXTRA);

  @ParameterizedTest(name = "{0} -> {1} {2}")
  @CsvSource(
      delimiter = '|',
      nullValues = "-",
      value = {
        // GitHub's domains
        "github.com                                   | ALLOWLISTED     | github.com",
        "GitHub.COM                                   | ALLOWLISTED     | github.com",
        "github.com.                                  | ALLOWLISTED     | github.com",
        "api.github.com                               | ALLOWLISTED     | *.github.com",
        "uploads.github.com                           | ALLOWLISTED     | *.github.com",
        "a.b.c.github.com                             | ALLOWLISTED     | *.github.com",
        "evilgithub.com                               | NOT_ALLOWLISTED | -",
        "github.com.evil.io                           | NOT_ALLOWLISTED | -",
        "raw.githubusercontent.com                    | ALLOWLISTED     | raw.githubusercontent.com",
        "gist.githubusercontent.com                   | NOT_ALLOWLISTED | -",
        // Baseline: LLM providers, leading wildcard never matches the apex
        "api.anthropic.com                            | ALLOWLISTED     | api.anthropic.com",
        "console.anthropic.com                        | ALLOWLISTED     | *.anthropic.com",
        "anthropic.com                                | NOT_ALLOWLISTED | -",
        "api.openai.com                               | ALLOWLISTED     | api.openai.com",
        "openai.com                                   | NOT_ALLOWLISTED | -",
        // Middle-label wildcard: exactly one label
        "bedrock.us-east-1.amazonaws.com              | ALLOWLISTED     | bedrock.*.amazonaws.com",
        "BEDROCK.eu-west-3.AmazonAWS.com.             | ALLOWLISTED     | bedrock.*.amazonaws.com",
        "bedrock-runtime.eu-west-1.amazonaws.com      | ALLOWLISTED     | bedrock-runtime.*.amazonaws.com",
        "bedrock.evil.attacker.amazonaws.com          | NOT_ALLOWLISTED | -",
        "bedrock.amazonaws.com                        | NOT_ALLOWLISTED | -",
        "s3.amazonaws.com                             | NOT_ALLOWLISTED | -",
        "mybucket.s3.us-east-1.amazonaws.com          | NOT_ALLOWLISTED | -",
        // Package registries
        "registry.npmjs.org                           | ALLOWLISTED     | registry.npmjs.org",
        "www.npmjs.org                                | ALLOWLISTED     | *.npmjs.org",
        "npmjs.org                                    | NOT_ALLOWLISTED | -",
        "pypi.org                                     | ALLOWLISTED     | pypi.org",
        "evil-pypi.org                                | NOT_ALLOWLISTED | -",
        "files.pythonhosted.org                       | ALLOWLISTED     | files.pythonhosted.org",
        "gitlab.com                                   | ALLOWLISTED     | gitlab.com",
        // The deny list beats every allow, in every spelling of the address
        "statsig.anthropic.com                        | DENY_LIST       | statsig.anthropic.com",
        "STATSIG.anthropic.com.                       | DENY_LIST       | statsig.anthropic.com",
        "169.254.169.254                              | DENY_LIST       | 169.254.169.254",
        "169.254.169.254.                             | DENY_LIST       | 169.254.169.254",
        "2852039166                                   | DENY_LIST       | 169.254.169.254",
        "0xa9fea9fe                                   | DENY_LIST       | 169.254.169.254",
        "0251.0376.0251.0376                          | DENY_LIST       | 169.254.169.254",
        "0xA9.0xFE.0xA9.0xFE                          | DENY_LIST       | 169.254.169.254",
        "169.254.43518                                | DENY_LIST       | 169.254.169.254",
        "[::ffff:169.254.169.254]                     | DENY_LIST       | 169.254.169.254",
        "[::ffff:a9fe:a9fe]                           | DENY_LIST       | 169.254.169.254",
        "[fd00:ec2::254]                              | DENY_LIST       | [fd00:ec2::254]",
        "[FD00:0EC2:0:0:0:0:0:0254]                   | DENY_LIST       | [fd00:ec2::254]",
        "fd00:ec2::254                                | DENY_LIST       | [fd00:ec2::254]",
        "metadata.google.internal                     | DENY_LIST       | metadata.google.internal",
        "METADATA.GOOGLE.INTERNAL.                    | DENY_LIST       | metadata.google.internal",
        "metadata                                     | DENY_LIST       | metadata",
        "169.254.170.2                                | DENY_LIST       | 169.254.170.2",
        "instance-data.ec2.internal                   | DENY_LIST       | instance-data.ec2.internal",
        "o123.ingest.sentry.io                        | DENY_LIST       | *.sentry.io",
        "sentry.io                                    | DENY_LIST       | sentry.io",
        "api.statsig.com                              | DENY_LIST       | *.statsig.com",
        // The spec's egressAllowlist
        "example.com                                  | NOT_ALLOWLISTED | -",
        "a.example.com                                | ALLOWLISTED     | *.example.com",
        "a.b.c.example.com                            | ALLOWLISTED     | *.example.com",
        "under_score.example.com                      | ALLOWLISTED     | *.example.com",
        "www．example．com                            | ALLOWLISTED     | *.example.com",
        "example.com.evil.net                         | NOT_ALLOWLISTED | -",
        "notexample.com                               | NOT_ALLOWLISTED | -",
        "api.partner.io                               | ALLOWLISTED     | api.partner.io",
        "www.partner.io                               | NOT_ALLOWLISTED | -",
        "www.bücher.de                                | ALLOWLISTED     | *.xn--bcher-kva.de",
        "WWW.XN--BCHER-KVA.DE.                        | ALLOWLISTED     | *.xn--bcher-kva.de",
        "bücher.de                                    | NOT_ALLOWLISTED | -",
        "www.bucher.de                                | NOT_ALLOWLISTED | -",
        "[2001:db8::10]                               | ALLOWLISTED     | [2001:db8::10]",
        "[2001:0db8:0000:0000:0000:0000:0000:0010]    | ALLOWLISTED     | [2001:db8::10]",
        "2001:db8::10                                 | ALLOWLISTED     | [2001:db8::10]",
        "[2001:db8::11]                               | NOT_ALLOWLISTED | -",
        "10.1.2.3                                     | ALLOWLISTED     | 10.1.2.3",
        "10.1.515                                     | ALLOWLISTED     | 10.1.2.3",
        "10.1.2.4                                     | NOT_ALLOWLISTED | -",
        "svc.eu.internal.example.net                  | ALLOWLISTED     | svc.*.internal.example.net",
        "svc.eu.us.internal.example.net               | NOT_ALLOWLISTED | -",
        "svc.internal.example.net                     | NOT_ALLOWLISTED | -",
        // Not hosts at all: refused, never matched
        "exa mple.com                                 | MALFORMED_HOST  | -",
        "a..b.com                                     | MALFORMED_HOST  | -",
        "[::1                                         | MALFORMED_HOST  | -",
        "[fe80::1%eth0]                               | MALFORMED_HOST  | -",
        "[1:2:3:4:5:6:7:8:9]                          | MALFORMED_HOST  | -",
        "256.1.1.1                                    | MALFORMED_HOST  | -",
        "1.2.3.4.5                                    | MALFORMED_HOST  | -",
        "github.com:443                               | MALFORMED_HOST  | -",
        "github.com/x                                 | MALFORMED_HOST  | -",
        "user@github.com                              | MALFORMED_HOST  | -",
        "ex%61mple.com                                | MALFORMED_HOST  | -",
        ".                                            | MALFORMED_HOST  | -",
      })
  void decidesHost(String host, EgressDecision.Basis basis, String rule) {
    EgressDecision d = policy.allows(host);
    assertThat(d.basis()).as(d.reason()).isEqualTo(basis);
    assertThat(d.allowed()).isEqualTo(basis == EgressDecision.Basis.ALLOWLISTED);
    assertThat(d.rule() == null ? null : d.rule().pattern()).isEqualTo(rule);
  }

  @Test
  void emptyAndNullHostsAreMalformed() {
    assertThat(policy.allows("").basis()).isEqualTo(EgressDecision.Basis.MALFORMED_HOST);
    assertThat(policy.allows(null).basis()).isEqualTo(EgressDecision.Basis.MALFORMED_HOST);
    assertThat(policy.allows("a".repeat(64) + ".com").basis())
        .isEqualTo(EgressDecision.Basis.MALFORMED_HOST);
    assertThat(policy.allows(("a".repeat(60) + ".").repeat(5) + "com").basis())
        .isEqualTo(EgressDecision.Basis.MALFORMED_HOST);
  }

  @Test
  void reasonsNameTheHostTheEntryAndTheSource() {
    assertThat(policy.allows("API.GitHub.com.").reason())
        .isEqualTo("allowed: api.github.com matches *.github.com (github)");
    assertThat(policy.allows("console.anthropic.com").reason())
        .isEqualTo("allowed: console.anthropic.com matches *.anthropic.com (baseline)");
    assertThat(policy.allows("x.example.com").reason())
        .isEqualTo("allowed: x.example.com matches *.example.com (egressAllowlist)");
    assertThat(policy.allows("0xa9fea9fe").reason())
        .isEqualTo("denied: 169.254.169.254 matches 169.254.169.254 on the fixed deny list");
    assertThat(policy.allows("example.org").reason())
        .isEqualTo("denied: example.org is not on the egress allowlist");
    assertThat(policy.allows("bad host").reason()).isEqualTo("denied: not a host name: bad host");
  }

  @Test
  void networkOffMeansAnEmptyAllowlistAndEveryConnectionRefused() {
    EgressPolicy off = EgressPolicy.resolve(false, List.of("*.example.com"));
    assertThat(off.networkEnabled()).isFalse();
    assertThat(off.allowlist()).isEmpty();
    assertThat(off.denylist()).isNotEmpty();
    assertThat(off.allows("github.com").basis()).isEqualTo(EgressDecision.Basis.NETWORK_DISABLED);
    assertThat(off.allows("a.example.com").reason())
        .isEqualTo("denied: network access is off for this run");
    assertThat(off.allows("169.254.169.254").basis()).isEqualTo(EgressDecision.Basis.DENY_LIST);
  }

  @Test
  void effectiveAllowlistIsBaselineThenGithubThenSpecDeduplicated() {
    EgressPolicy p = EgressPolicy.resolve(true, List.of("GITHUB.COM.", "*.Example.com"));
    List<String> patterns = new ArrayList<>();
    for (EgressRule r : p.allowlist()) {
      patterns.add(r.pattern());
    }
    assertThat(patterns).doesNotHaveDuplicates();
    assertThat(patterns).contains("api.anthropic.com", "bedrock.*.amazonaws.com", "github.com");
    assertThat(patterns.indexOf("api.anthropic.com")).isLessThan(patterns.indexOf("github.com"));
    assertThat(patterns.get(patterns.size() - 1)).isEqualTo("*.example.com");
    assertThat(p.allowlist().get(patterns.indexOf("github.com")).source())
        .isEqualTo(EgressRule.Source.GITHUB);
  }

  @Test
  void malformedSpecEntryIsRefusedNamingTheEntry() {
    assertThatThrownBy(() -> EgressPolicy.resolve(true, List.of("ok.example.com", "*.*.x.com")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("egressAllowlist: egress entry has more than one *: *.*.x.com");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "*                  | a wildcard must be the first label (*.example.com) or a middle label (bedrock.*.amazonaws.com): *",
        "example.*          | a wildcard must be the first label (*.example.com) or a middle label (bedrock.*.amazonaws.com): example.*",
        "*.*.example.com    | egress entry has more than one *: *.*.example.com",
        "a.*.b.*.com        | egress entry has more than one *: a.*.b.*.com",
        "foo*.example.com   | * must be a whole label: foo*.example.com",
        "*foo.example.com   | * must be a whole label: *foo.example.com",
        "bedrock.us-*.amazonaws.com | * must be a whole label: bedrock.us-*.amazonaws.com",
        "*.com              | wildcard is too broad, it covers a whole top-level domain: *.com",
        "*.1.2.3            | an IP address cannot have a wildcard: *.1.2.3",
        "[*::1]             | an IP address cannot have a wildcard: [*::1]",
        "https://example.com | egress entry must be a bare host name (no scheme, port or path): https://example.com",
        "example.com/path   | egress entry must be a bare host name (no scheme, port or path): example.com/path",
        "example.com:443    | egress entry must be a bare host name (no scheme, port or path): example.com:443",
        "fd00:ec2::254      | IPv6 addresses are written in brackets: [fd00:ec2::254]",
        "[fd00::zz]         | bad egress entry: not a valid IPv6 address: [fd00::zz]",
        "[fd00::1          | bad egress entry: not a valid IPv6 address: [fd00::1",
        "a..example.com     | bad egress entry: host has an empty label: a..example.com",
        "*..example.com     | host has an empty label: *..example.com",
        "a.example.com?     | egress entry has a forbidden character 0x3f at 13: a.example.com?",
        "user@example.com   | egress entry has a forbidden character 0x40 at 4: user@example.com",
        "256.0.0.1          | bad egress entry: not a valid IPv4 address: 256.0.0.1",
        "ex!ample.com       | bad egress entry: host has a forbidden character 0x21: ex!ample.com",
        "*.ex!ample.com     | host has a forbidden character 0x21: *.ex!ample.com",
      })
  void refusesMalformedPatternAtLoad(String entry, String message) {
    assertThatThrownBy(() -> HostPattern.parse(entry))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
  }

  @Test
  void refusesEmptyWhitespaceAndOverlongPatterns() {
    assertThatThrownBy(() -> HostPattern.parse(""))
        .hasMessage("an egress entry is empty");
    assertThatThrownBy(() -> HostPattern.parse("   ")).hasMessage("an egress entry is empty");
    assertThatThrownBy(() -> HostPattern.parse("exa mple.com"))
        .hasMessage("egress entry has a forbidden character 0x20 at 3: exa mple.com");
    assertThatThrownBy(() -> HostPattern.parse("a\n.com"))
        .hasMessage("egress entry has a forbidden character 0x0a at 1: a\\x0a.com");
    String longLabel = "a".repeat(64) + ".com";
    assertThatThrownBy(() -> HostPattern.parse(longLabel))
        .hasMessage("bad egress entry: host has a label longer than 63 characters: " + longLabel);
  }

  @Test
  void patternsAreCanonicalised() {
    assertThat(new EgressRule("*.Example.COM.", EgressRule.Source.EGRESS_ALLOWLIST).pattern())
        .isEqualTo("*.example.com");
    assertThat(new EgressRule("[FD00:0EC2::0254]", EgressRule.Source.DENY_LIST).pattern())
        .isEqualTo("[fd00:ec2::254]");
    assertThat(new EgressRule("[::FFFF:169.254.169.254]", EgressRule.Source.DENY_LIST).pattern())
        .isEqualTo("169.254.169.254");
    assertThat(new EgressRule("Bedrock.*.AMAZONAWS.com", EgressRule.Source.BASELINE).pattern())
        .isEqualTo("bedrock.*.amazonaws.com");
    assertThat(new EgressRule("*.bücher.de", EgressRule.Source.BASELINE).pattern())
        .isEqualTo("*.xn--bcher-kva.de");
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "[2001:db8:0:0:1:0:0:1]       | [2001:db8::1:0:0:1]",
        "[2001:0:0:1:0:0:0:1]         | [2001:0:0:1::1]",
        "[0:0:0:0:0:0:0:1]            | [::1]",
        "[::]                         | [::]",
        "[1::]                        | [1::]",
        "[2001:db8:1:2:3:4:5:6]       | [2001:db8:1:2:3:4:5:6]",
        "[2001:db8::1:2:3:4:5]        | [2001:db8:0:1:2:3:4:5]",
        "[64:ff9b::192.0.2.33]        | [64:ff9b::c000:221]",
        "127.1                        | 127.0.0.1",
        "0                            | 0.0.0.0",
        "4294967295                   | 255.255.255.255",
      })
  void canonicalisesAddresses(String raw, String canonical) {
    assertThat(Hosts.canonical(raw)).isEqualTo(canonical);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {"4294967296", "1.16777216", "0x100000000", "1.2.3.0400", "08.1.1.1", "1.2.3.09",
          "[:::1]", "[1::2::3]", "[12345::1]", "[1:2:3:4:5:6:7::8:9]", "[::1.2.3]",
          "[::1.2.3.256]", "[]"})
  void refusesMalformedAddresses(String raw) {
    assertThatThrownBy(() -> Hosts.canonical(raw)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void listFilesIgnoreCommentsAndBlankLinesAndNameTheBadLine() {
    assertThat(EgressLists.parse("github.com  # the forge\n\n# comment\n*.npmjs.org\r\n", "f.txt"))
        .containsExactly("github.com", "*.npmjs.org");
    assertThatThrownBy(() -> EgressLists.parse("github.com\n# c\n\n*.*.x.com\n", "f.txt"))
        .hasMessage("f.txt line 4: egress entry has more than one *: *.*.x.com");
    assertThatThrownBy(
            () -> new EgressLists(List.of("ok.com"), List.of("example.*"), List.of()))
        .hasMessage(
            "github egress list: a wildcard must be the first label (*.example.com) or a middle"
                + " label (bedrock.*.amazonaws.com): example.*");
  }

  @Test
  void embeddedListsLoad() {
    EgressLists lists = EgressLists.embedded();
    assertThat(lists.deny())
        .contains("169.254.169.254", "[fd00:ec2::254]", "metadata.google.internal", "*.sentry.io");
    assertThat(lists.github()).contains("github.com", "*.github.com");
    assertThat(lists.baseline()).contains("api.anthropic.com", "registry.npmjs.org");
    assertThat(lists.baseline()).doesNotContain("*.amazonaws.com");
  }

  /**
   * Whatever the allowlist (including wildcards that cover deny entries), no spelling of a host on
   * the deny list is ever allowed.
   */
  @Test
  void noDenyListHostIsEverAllowedWhateverTheAllowlist() {
    EgressLists lists = EgressLists.embedded();
    Random random = new Random(20240917L);
    List<String> candidates = allowCandidates(lists.deny(), random);
    EgressLists noDenyList = new EgressLists(List.of(), List.of(), List.of());
    int coveredByAllow = 0;
    for (int round = 0; round < 3000; round++) {
      List<String> allow = new ArrayList<>();
      int n = random.nextInt(9);
      for (int i = 0; i < n; i++) {
        allow.add(candidates.get(random.nextInt(candidates.size())));
      }
      EgressPolicy p = EgressPolicy.resolve(lists, random.nextInt(4) != 0, allow);
      String denied = lists.deny().get(random.nextInt(lists.deny().size()));
      String host = spelling(denied, random);
      EgressDecision d = p.allows(host);
      assertThat(d.allowed()).as("%s with allowlist %s: %s", host, allow, d.reason()).isFalse();
      assertThat(d.basis()).as("%s with allowlist %s", host, allow)
          .isEqualTo(EgressDecision.Basis.DENY_LIST);
      if (EgressPolicy.resolve(noDenyList, true, allow).allows(host).allowed()) {
        coveredByAllow++;
      }
    }
    // The generator must really produce allowlists that would let these hosts through.
    assertThat(coveredByAllow).isGreaterThan(500);
  }

  private static List<String> allowCandidates(List<String> deny, Random random) {
    List<String> out = new ArrayList<>(List.of("github.com", "*.example.com", "10.0.0.1"));
    for (String d : deny) {
      out.add(d);
      String base = d.startsWith("*.") ? d.substring(2) : d;
      String[] labels = base.split("\\.");
      for (int i = 0; i < labels.length - 1; i++) {
        StringBuilder suffix = new StringBuilder();
        for (int j = i; j < labels.length; j++) {
          suffix.append(j > i ? "." : "").append(labels[j]);
        }
        out.add("*." + suffix);
        String[] middle = labels.clone();
        if (i > 0) {
          middle[i] = "*";
          out.add(String.join(".", middle));
        }
      }
    }
    List<String> valid = new ArrayList<>();
    for (String c : out) {
      try {
        HostPattern.parse(c);
        valid.add(c);
      } catch (IllegalArgumentException e) {
        // Too broad or an IP with a wildcard: the loader refuses it, so it cannot be in a list.
      }
    }
    return valid;
  }

  private static String spelling(String entry, Random random) {
    String host = entry;
    if (entry.startsWith("*.")) {
      int depth = 1 + random.nextInt(3);
      StringBuilder b = new StringBuilder();
      for (int i = 0; i < depth; i++) {
        b.append("x").append(random.nextInt(1000)).append('.');
      }
      host = b + entry.substring(2);
    }
    String canonical = Hosts.canonical(host);
    if (canonical.matches("\\d+\\.\\d+\\.\\d+\\.\\d+")) {
      return ipv4Spelling(canonical, random);
    }
    if (canonical.startsWith("[")) {
      return ipv6Spelling(canonical, random);
    }
    StringBuilder b = new StringBuilder();
    for (char c : host.toCharArray()) {
      b.append(random.nextBoolean() ? Character.toUpperCase(c) : c);
    }
    return random.nextBoolean() ? b + "." : b.toString();
  }

  private static String ipv4Spelling(String dotted, Random random) {
    String[] p = dotted.split("\\.");
    long[] o = new long[4];
    for (int i = 0; i < 4; i++) {
      o[i] = Long.parseLong(p[i]);
    }
    long value = (o[0] << 24) | (o[1] << 16) | (o[2] << 8) | o[3];
    switch (random.nextInt(7)) {
      case 0:
        return dotted;
      case 1:
        return Long.toString(value);
      case 2:
        return "0x" + Long.toHexString(value).toUpperCase(Locale.ROOT);
      case 3:
        return String.format("0%o.0%o.0%o.0%o", o[0], o[1], o[2], o[3]);
      case 4:
        return String.format("0x%x.0x%x.0x%x.0x%x", o[0], o[1], o[2], o[3]);
      case 5:
        return o[0] + "." + o[1] + "." + ((o[2] << 8) | o[3]) + ".";
      default:
        return String.format("[::ffff:%x:%x]", (o[0] << 8) | o[1], (o[2] << 8) | o[3]);
    }
  }

  private static String ipv6Spelling(String bracketed, Random random) {
    String inner = bracketed.substring(1, bracketed.length() - 1);
    // Expand "::" into explicit zero groups, with random leading zeros and case.
    String[] halves = inner.split("::", -1);
    List<String> head = halves[0].isEmpty() ? List.of() : List.of(halves[0].split(":"));
    List<String> tail =
        halves.length > 1 && !halves[1].isEmpty() ? List.of(halves[1].split(":")) : List.of();
    List<String> groups = new ArrayList<>(head);
    for (int i = head.size() + tail.size(); i < 8; i++) {
      groups.add("0");
    }
    groups.addAll(tail);
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < groups.size(); i++) {
      String g = groups.get(i);
      if (random.nextBoolean()) {
        g = "0".repeat(4 - g.length()) + g;
      }
      b.append(i > 0 ? ":" : "").append(random.nextBoolean() ? g.toUpperCase(Locale.ROOT) : g);
    }
    return random.nextBoolean() ? "[" + b + "]" : b.toString();
  }
}
