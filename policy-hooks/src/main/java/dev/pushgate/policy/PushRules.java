package dev.pushgate.policy;

import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The "Push to a remote" rule of a workspace: a default decision and ref-scoped rules. The most
 * specific matching rule wins (exact ref over wildcard, more literal characters over fewer, a rule
 * scoped to kinds of update over one that is not); at equal specificity deny beats ask beats allow.
 */
public final class PushRules {
  /** No scoped rule and a default of allow: what a workspace without push rules gets. */
  public static final PushRules ALLOW_ALL = new PushRules(Decision.ALLOW, List.of());

  private static final Comparator<PushRule> SPECIFICITY =
      Comparator.<PushRule, RefPattern>comparing(PushRule::refs, RefPattern::compareSpecificity)
          .thenComparing(r -> !r.kinds().isEmpty())
          .thenComparing(PushRule::decision);

  private final Decision fallback;
  private final List<PushRule> rules;

  private PushRules(Decision fallback, List<PushRule> rules) {
    this.fallback = Objects.requireNonNull(fallback, "fallback");
    this.rules = List.copyOf(rules);
  }

  public static PushRules of(Decision fallback, List<PushRule> rules) {
    return new PushRules(fallback, rules);
  }

  public static PushRules of(List<PushRule> rules) {
    return new PushRules(Decision.ALLOW, rules);
  }

  public List<PushRule> rules() {
    return rules;
  }

  public Decision fallback() {
    return fallback;
  }

  /** Judges one ref update. Never returns null. */
  public Judgement judge(String ref, UpdateKind kind) {
    return decidingRule(ref, kind)
        .map(r -> new Judgement(r.decision(), r.describe(), r.reason()))
        .orElseGet(this::fallbackJudgement);
  }

  /** The scoped rule that decides an update, or empty when the fallback does. */
  Optional<PushRule> decidingRule(String ref, UpdateKind kind) {
    return rules.stream().filter(r -> r.covers(ref, kind)).max(SPECIFICITY);
  }

  /** The most restrictive decision any push could get under these rules. */
  public Decision strictest() {
    Decision d = fallback;
    for (PushRule r : rules) {
      d = d.strictest(r.decision());
    }
    return d;
  }

  /**
   * True when no ref can be pushed under these rules, whatever the update: the fallback and every
   * scoped rule deny. A rule that allows or asks for some refs makes it false.
   */
  public boolean deniesEverything() {
    return fallback == Decision.DENY && rules.stream().allMatch(r -> r.decision() == Decision.DENY);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PushRules p && p.fallback == fallback && p.rules.equals(rules);
  }

  @Override
  public int hashCode() {
    return Objects.hash(fallback, rules);
  }

  @Override
  public String toString() {
    return "PushRules[fallback=" + fallback.id() + ", rules=" + rules.stream().map(PushRule::describe).toList() + "]";
  }

  private Judgement fallbackJudgement() {
    String reason = switch (fallback) {
      case ALLOW -> "no push rule matches; push is allowed";
      case ASK -> "push needs approval";
      case DENY -> "push to a remote is denied";
    };
    return new Judgement(fallback, "push -> " + fallback.id(), reason);
  }
}
