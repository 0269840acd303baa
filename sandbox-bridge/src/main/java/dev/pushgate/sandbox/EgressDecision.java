package dev.pushgate.sandbox;

import dev.pushgate.types.UntrustedText;

/**
 * Whether a connection to a host may leave the sandbox, and why.
 *
 * @param basis what decided
 * @param host the host in canonical spelling, or as given when it is not a host
 * @param rule the entry that matched, or null when none did
 */
public record EgressDecision(Basis basis, String host, EgressRule rule) {

  /** What decided. Only {@link #ALLOWLISTED} lets a connection through. */
  public enum Basis {
    /** An allowlist entry matched and no deny entry did. */
    ALLOWLISTED,
    /** A fixed deny-list entry matched; it beats every allow. */
    DENY_LIST,
    /** The access-network rule is deny: the allowlist is empty. */
    NETWORK_DISABLED,
    /** Nothing on the allowlist matched. */
    NOT_ALLOWLISTED,
    /** The host is not a host name or address. */
    MALFORMED_HOST
  }

  public EgressDecision {
    if (basis == null) {
      throw new IllegalArgumentException("an egress decision needs a basis");
    }
    if ((rule != null) != (basis == Basis.ALLOWLISTED || basis == Basis.DENY_LIST)) {
      throw new IllegalArgumentException("an egress decision names a rule exactly when one matched");
    }
  }

  public boolean allowed() {
    return basis == Basis.ALLOWLISTED;
  }

  /** One line for logs and the run's event stream. */
  public String reason() {
    switch (basis) {
      case ALLOWLISTED:
        return "allowed: " + host + " matches " + rule.pattern() + " (" + rule.source().id() + ")";
      case DENY_LIST:
        return "denied: " + host + " matches " + rule.pattern() + " on the fixed deny list";
      case NETWORK_DISABLED:
        return "denied: network access is off for this run";
      case NOT_ALLOWLISTED:
        return "denied: " + host + " is not on the egress allowlist";
      default:
        return "denied: not a host name: " + UntrustedText.printable(host);
    }
  }
}
