package dev.pushgate.sandbox;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.pushgate.types.UntrustedText;

/**
 * A host path visible inside the sandbox.
 *
 * @param hostPath absolute path on the host
 * @param guestPath path inside the sandbox; the native backend uses the host path, kept for
 *     symmetry between adapters
 * @param readOnly mounted read-only when true (default false)
 */
public record SandboxBindMount(String hostPath, String guestPath, boolean readOnly) {
  public SandboxBindMount {
    requirePath(hostPath, "hostPath");
    requirePath(guestPath, "guestPath");
  }

  /** A mount at the same path inside as outside, as the native backend does it. */
  public static SandboxBindMount of(String hostPath, boolean readOnly) {
    return new SandboxBindMount(hostPath, hostPath, readOnly);
  }

  @JsonCreator
  static SandboxBindMount fromJson(
      @JsonProperty("hostPath") String hostPath,
      @JsonProperty("guestPath") String guestPath,
      @JsonProperty("readOnly") Boolean readOnly) {
    return new SandboxBindMount(
        hostPath, guestPath == null ? hostPath : guestPath, readOnly != null && readOnly);
  }

  private static void requirePath(String p, String field) {
    if (p == null || p.isBlank()) {
      throw new IllegalArgumentException("a bind mount needs a " + field);
    }
    if (UntrustedText.hasControl(p)) {
      throw new IllegalArgumentException(
          "a bind mount " + field + " has a control character: " + UntrustedText.printable(p));
    }
  }
}
