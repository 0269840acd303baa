package dev.pushgate.types;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Objects;

/**
 * A token or key that must never reach a log, a message or a response. Not a record: a record
 * would expose the value through its accessor and {@code toString}. Only code that puts the value
 * on the wire calls {@link #reveal()}.
 */
public final class Secret {
  private final String value;

  private Secret(String value) {
    this.value = value;
  }

  public static Secret of(String value) {
    Objects.requireNonNull(value, "value");
    if (value.isEmpty()) {
      throw new IllegalArgumentException("a secret is empty");
    }
    return new Secret(value);
  }

  /** The raw value, for the one place that sends it. */
  public String reveal() {
    return value;
  }

  /** Constant-time comparison. */
  public boolean matches(String candidate) {
    if (candidate == null) {
      return false;
    }
    return MessageDigest.isEqual(
        value.getBytes(StandardCharsets.UTF_8), candidate.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Secret s && matches(s.value);
  }

  @Override
  public int hashCode() {
    return 0; // equal secrets must hash alike; a constant leaks nothing about the value
  }

  @Override
  public String toString() {
    return "Secret[***]";
  }
}
