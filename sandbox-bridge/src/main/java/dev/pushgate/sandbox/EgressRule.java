package dev.pushgate.sandbox;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.pushgate.types.EnumIds;

/**
 * One entry of the effective allow or deny list, in canonical spelling, with where it came from.
 */
public record EgressRule(String pattern, Source source) {

  /** Where an entry came from. */
  public enum Source {
    /** The curated baseline: LLM API providers, git hosting, package registries. */
    BASELINE("baseline"),
    /** GitHub's own domains. */
    GITHUB("github"),
    /** The spec's {@code egressAllowlist}. */
    EGRESS_ALLOWLIST("egressAllowlist"),
    /** The fixed deny list: cloud metadata endpoints, telemetry. */
    DENY_LIST("deny-list");

    private final String id;

    Source(String id) {
      this.id = id;
    }

    @JsonValue
    public String id() {
      return id;
    }

    @JsonCreator
    public static Source fromId(String id) {
      return EnumIds.parse(Source.class, Source::id, id, "an egress rule source");
    }
  }

  /** Checks and canonicalises the pattern. */
  @JsonCreator
  public EgressRule(@JsonProperty("pattern") String pattern, @JsonProperty("source") Source source) {
    if (source == null) {
      throw new IllegalArgumentException("an egress rule needs a source");
    }
    this.pattern = HostPattern.parse(pattern).toString();
    this.source = source;
  }

  HostPattern compiled() {
    return HostPattern.parse(pattern);
  }
}
