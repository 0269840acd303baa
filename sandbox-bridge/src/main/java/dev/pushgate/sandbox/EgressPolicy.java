package dev.pushgate.sandbox;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A run's egress policy: deny by default; the curated baseline, GitHub's domains and the spec's
 * {@code egressAllowlist} allowed; the fixed deny list beating every allow. With the network off
 * the allowlist is empty and every connection is refused.
 */
public final class EgressPolicy {
  private final boolean networkEnabled;
  private final List<EgressRule> allowlist;
  private final List<EgressRule> denylist;
  private final List<HostPattern> allowPatterns;
  private final List<HostPattern> denyPatterns;

  private EgressPolicy(boolean networkEnabled, List<EgressRule> allow, List<EgressRule> deny) {
    this.networkEnabled = networkEnabled;
    this.allowlist = networkEnabled ? dedupe(allow) : List.of();
    this.denylist = dedupe(deny);
    this.allowPatterns = compile(this.allowlist);
    this.denyPatterns = compile(this.denylist);
  }

  /**
   * The policy for a run.
   *
   * @param networkEnabled false when the access-network rule resolves to deny
   * @param egressAllowlist the spec's extra entries
   * @throws IllegalArgumentException naming the first malformed entry
   */
  public static EgressPolicy resolve(
      EgressLists lists, boolean networkEnabled, List<String> egressAllowlist) {
    List<EgressRule> allow = new ArrayList<>();
    for (String e : lists.baseline()) {
      allow.add(new EgressRule(e, EgressRule.Source.BASELINE));
    }
    for (String e : lists.github()) {
      allow.add(new EgressRule(e, EgressRule.Source.GITHUB));
    }
    for (String e : egressAllowlist == null ? List.<String>of() : egressAllowlist) {
      try {
        allow.add(new EgressRule(e, EgressRule.Source.EGRESS_ALLOWLIST));
      } catch (IllegalArgumentException ex) {
        throw new IllegalArgumentException("egressAllowlist: " + ex.getMessage());
      }
    }
    List<EgressRule> deny = new ArrayList<>();
    for (String e : lists.deny()) {
      deny.add(new EgressRule(e, EgressRule.Source.DENY_LIST));
    }
    return new EgressPolicy(networkEnabled, allow, deny);
  }

  /** The policy for a run with the embedded lists. */
  public static EgressPolicy resolve(boolean networkEnabled, List<String> egressAllowlist) {
    return resolve(EgressLists.embedded(), networkEnabled, egressAllowlist);
  }

  @JsonCreator
  static EgressPolicy fromJson(
      @JsonProperty("networkEnabled") boolean networkEnabled,
      @JsonProperty("allowlist") List<EgressRule> allowlist,
      @JsonProperty("denylist") List<EgressRule> denylist) {
    return new EgressPolicy(
        networkEnabled,
        allowlist == null ? List.of() : allowlist,
        denylist == null ? List.of() : denylist);
  }

  /** Decides a connection to a host (as a proxy receives it: name, IPv4 or IPv6 literal). */
  public EgressDecision allows(String host) {
    String canonical;
    try {
      canonical = Hosts.canonical(host);
    } catch (IllegalArgumentException e) {
      return new EgressDecision(EgressDecision.Basis.MALFORMED_HOST, host, null);
    }
    for (int i = 0; i < denyPatterns.size(); i++) {
      if (denyPatterns.get(i).matches(canonical)) {
        return new EgressDecision(EgressDecision.Basis.DENY_LIST, canonical, denylist.get(i));
      }
    }
    if (!networkEnabled) {
      return new EgressDecision(EgressDecision.Basis.NETWORK_DISABLED, canonical, null);
    }
    for (int i = 0; i < allowPatterns.size(); i++) {
      if (allowPatterns.get(i).matches(canonical)) {
        return new EgressDecision(EgressDecision.Basis.ALLOWLISTED, canonical, allowlist.get(i));
      }
    }
    return new EgressDecision(EgressDecision.Basis.NOT_ALLOWLISTED, canonical, null);
  }

  @JsonProperty("networkEnabled")
  public boolean networkEnabled() {
    return networkEnabled;
  }

  /** The effective allowlist, first source of each entry kept; empty when the network is off. */
  @JsonProperty("allowlist")
  public List<EgressRule> allowlist() {
    return allowlist;
  }

  @JsonProperty("denylist")
  public List<EgressRule> denylist() {
    return denylist;
  }

  private static List<EgressRule> dedupe(List<EgressRule> rules) {
    Set<String> seen = new LinkedHashSet<>();
    List<EgressRule> out = new ArrayList<>();
    for (EgressRule r : rules) {
      if (r == null) {
        throw new IllegalArgumentException("an egress list has a null entry");
      }
      if (seen.add(r.pattern())) {
        out.add(r);
      }
    }
    return List.copyOf(out);
  }

  private static List<HostPattern> compile(List<EgressRule> rules) {
    List<HostPattern> out = new ArrayList<>();
    for (EgressRule r : rules) {
      out.add(r.compiled());
    }
    return List.copyOf(out);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof EgressPolicy p
        && p.networkEnabled == networkEnabled
        && p.allowlist.equals(allowlist)
        && p.denylist.equals(denylist);
  }

  @Override
  public int hashCode() {
    return allowlist.hashCode() * 31 + denylist.hashCode() + (networkEnabled ? 1 : 0);
  }

  @Override
  public String toString() {
    return "EgressPolicy[networkEnabled=" + networkEnabled + ", allow=" + allowlist.size()
        + " entries, deny=" + denylist.size() + " entries]";
  }
}
