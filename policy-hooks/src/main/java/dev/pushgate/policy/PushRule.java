package dev.pushgate.policy;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * One scoped rule of "Push to a remote": the refs it covers, optionally the kinds of update it
 * covers (all when empty), its decision and the reason shown to the person pushing.
 */
public record PushRule(RefPattern refs, Set<UpdateKind> kinds, Decision decision, String reason) {
  public PushRule {
    Objects.requireNonNull(refs, "refs");
    Objects.requireNonNull(decision, "decision");
    kinds = kinds == null || kinds.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(kinds));
    reason = reason == null || reason.isBlank() ? defaultReason(refs, decision) : reason.strip();
    if (reason.indexOf('\n') >= 0 || reason.indexOf('\r') >= 0) {
      throw new IllegalArgumentException("a rule's reason must be one line: " + reason);
    }
  }

  public static PushRule of(String refs, Decision decision, String reason) {
    return new PushRule(RefPattern.parse(refs), Set.of(), decision, reason);
  }

  public boolean covers(String ref, UpdateKind kind) {
    return refs.matches(ref) && (kinds.isEmpty() || kinds.contains(kind));
  }

  /** How this rule is named in audit records and decisions. */
  public String describe() {
    StringBuilder s = new StringBuilder("push ").append(refs);
    if (!kinds.isEmpty()) {
      s.append(' ').append(kinds.stream().map(UpdateKind::id).sorted().toList());
    }
    return s.append(" -> ").append(decision.id()).toString();
  }

  private static String defaultReason(RefPattern refs, Decision decision) {
    return switch (decision) {
      case ALLOW -> "push to " + refs + " is allowed";
      case ASK -> "push to " + refs + " needs approval";
      case DENY -> "push to " + refs + " is denied";
    };
  }
}
