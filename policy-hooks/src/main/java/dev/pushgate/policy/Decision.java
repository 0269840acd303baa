package dev.pushgate.policy;

import dev.pushgate.types.EnumIds;
import java.util.Locale;

/** What a rule says about an action, ordered from least to most restrictive. */
public enum Decision {
  ALLOW,
  ASK,
  DENY;

  /** The id used in rules documents and JSON: {@code allow}, {@code ask}, {@code deny}. */
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The stricter of two decisions. */
  public Decision strictest(Decision other) {
    return compareTo(other) >= 0 ? this : other;
  }

  public static Decision fromId(String id) {
    return EnumIds.parse(Decision.class, Decision::id, id, "a decision");
  }
}
