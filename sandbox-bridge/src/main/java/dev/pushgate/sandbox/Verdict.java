package dev.pushgate.sandbox;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.pushgate.types.EnumIds;
import java.util.List;
import java.util.Locale;

/**
 * Whether a run may launch as planned. A refusal names the reason and the explicit ways out; a
 * refused run never launches with a weaker policy instead.
 *
 * @param launch allowed or refused
 * @param reason why it is refused; null when allowed
 * @param waysOut what an operator can do about it; empty when allowed
 */
public record Verdict(Launch launch, String reason, List<String> waysOut) {

  /** The two outcomes. */
  public enum Launch {
    ALLOWED,
    REFUSED;

    @JsonValue
    public String id() {
      return name().toLowerCase(Locale.ROOT);
    }

    @JsonCreator
    public static Launch fromId(String id) {
      return EnumIds.parse(Launch.class, Launch::id, id, "a launch verdict");
    }
  }

  public Verdict {
    if (launch == null) {
      throw new IllegalArgumentException("a verdict needs a launch outcome");
    }
    waysOut = waysOut == null ? List.of() : List.copyOf(waysOut);
    if (launch == Launch.REFUSED && (reason == null || reason.isBlank())) {
      throw new IllegalArgumentException("a refusal needs a reason");
    }
    if (launch == Launch.ALLOWED && (reason != null || !waysOut.isEmpty())) {
      throw new IllegalArgumentException("an allowed launch has no reason or ways out");
    }
  }

  public static Verdict allowed() {
    return new Verdict(Launch.ALLOWED, null, List.of());
  }

  public static Verdict refused(String reason, List<String> waysOut) {
    return new Verdict(Launch.REFUSED, reason, waysOut);
  }

  /** Whether the run may launch. */
  public boolean launches() {
    return launch == Launch.ALLOWED;
  }
}
