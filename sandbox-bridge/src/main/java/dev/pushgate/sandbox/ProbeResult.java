package dev.pushgate.sandbox;

import java.util.List;

/**
 * What the start-up probe found: whether this host offers a native backend, and why not.
 *
 * @param platform the host platform
 * @param available whether a native backend can wrap agent runs
 * @param tool the wrapping tool ({@code sandbox-exec}, {@code bwrap}) when available, else null
 * @param note the capability note when available ("… — namespace-level isolation, no kernel
 *     boundary"), else null
 * @param requiresInstall whether installing packages would make a backend available
 * @param missingPackages the packages to install, in install order; empty unless {@code
 *     requiresInstall}
 * @param hint what to tell the operator when unavailable, else null
 */
public record ProbeResult(
    Platform platform,
    boolean available,
    String tool,
    String note,
    boolean requiresInstall,
    List<String> missingPackages,
    String hint) {

  public ProbeResult {
    if (platform == null) {
      throw new IllegalArgumentException("a probe result needs a platform");
    }
    missingPackages = missingPackages == null ? List.of() : List.copyOf(missingPackages);
    if (available && (tool == null || note == null || hint != null || requiresInstall)) {
      throw new IllegalArgumentException(
          "an available backend has a tool and a note, and no hint or install requirement");
    }
    if (!available && (tool != null || note != null || hint == null)) {
      throw new IllegalArgumentException("an unavailable backend has a hint and no tool or note");
    }
    if (requiresInstall == missingPackages.isEmpty()) {
      throw new IllegalArgumentException("requiresInstall exactly when packages are missing");
    }
  }

  /** The one line the appliance logs at start. */
  public String startupLine(SandboxSwitch sandboxSwitch) {
    return startupLine(sandboxSwitch, null);
  }

  /**
   * The one line the appliance logs at start; {@code offSource} names where a switched-off
   * setting came from ({@link SandboxSwitch#disabledBy}), null when not known.
   */
  public String startupLine(SandboxSwitch sandboxSwitch, String offSource) {
    if (sandboxSwitch == SandboxSwitch.OFF) {
      return SandboxSwitch.disabledBy(offSource);
    }
    if (available) {
      return "agent sandbox ON: " + note;
    }
    return "no OS-native agent sandbox on this host: " + hint;
  }

  /** The note when available, else the hint: what a run's plan reports about the host. */
  public String summary() {
    return available ? note : hint;
  }
}
