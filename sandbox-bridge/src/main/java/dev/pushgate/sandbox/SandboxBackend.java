package dev.pushgate.sandbox;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.pushgate.types.UntrustedText;
import java.util.Locale;
import java.util.Optional;

/** Where an agent run's process is confined. Only {@link #MICROVM} has a kernel boundary. */
public enum SandboxBackend {
  /** Seatbelt on macOS, bubblewrap on Linux and WSL2: namespace-level isolation. */
  NATIVE,
  /** No sandbox: the process runs on the host. */
  NONE,
  /** A microVM: the workload does not run on the host at all. */
  MICROVM;

  /** The id used in JSON and configuration: {@code native}, {@code none}, {@code microvm}. */
  @JsonValue
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Whether a run under this backend is confined by something other than the host's own rules. */
  public boolean wraps() {
    return this != NONE;
  }

  /**
   * Reads a stored value. A null or unrecognised value reads as {@link #NONE}, so stored data never
   * claims a confinement it cannot name; {@code "docker"} is an old spelling of {@link #NATIVE}.
   */
  @JsonCreator
  public static SandboxBackend fromName(String name) {
    if (name == null) {
      return NONE;
    }
    String n = name.trim().toLowerCase(Locale.ROOT);
    if (n.equals("docker")) {
      return NATIVE;
    }
    for (SandboxBackend b : values()) {
      if (b.id().equals(n)) {
        return b;
      }
    }
    return NONE;
  }

  /**
   * Reads a backend asked for by a run. Unlike {@link #fromName}, an unknown name is an error: a
   * typo must not quietly become an unconfined run. Null means "not specified".
   *
   * @throws IllegalArgumentException naming the value when it is not a backend
   */
  public static Optional<SandboxBackend> parseRequested(String name) {
    if (name == null) {
      return Optional.empty();
    }
    String n = name.trim().toLowerCase(Locale.ROOT);
    if (n.equals("docker")) {
      return Optional.of(NATIVE);
    }
    for (SandboxBackend b : values()) {
      if (b.id().equals(n)) {
        return Optional.of(b);
      }
    }
    throw new IllegalArgumentException(
        "unknown sandbox backend: " + UntrustedText.printable(name) + " (expected native, none or microvm)");
  }
}
