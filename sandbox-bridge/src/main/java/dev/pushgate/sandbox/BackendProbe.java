package dev.pushgate.sandbox;

import java.util.ArrayList;
import java.util.List;

/** The start-up probe for a native sandbox backend. Run once; the result governs every run. */
public final class BackendProbe {
  static final String SEATBELT_NOTE = "Seatbelt — namespace-level isolation, no kernel boundary";
  static final String BUBBLEWRAP_NOTE =
      "bubblewrap — namespace-level isolation, no kernel boundary";
  static final String NOT_OFFERED = "native sandbox is not offered on this platform";

  private BackendProbe() {}

  /** Probes the given platform, looking tools up with the given search. */
  public static ProbeResult probe(Platform platform, Executables executables) {
    if (platform == null || executables == null) {
      throw new IllegalArgumentException("the probe needs a platform and an executable search");
    }
    switch (platform) {
      case MACOS:
        // sandbox-exec ships with every macOS install; nothing to look up.
        return new ProbeResult(platform, true, "sandbox-exec", SEATBELT_NOTE, false, List.of(), null);
      case LINUX:
      case WSL2:
        List<String> missing = new ArrayList<>();
        if (!executables.onPath("bwrap")) {
          missing.add("bubblewrap");
        }
        if (!executables.onPath("socat")) {
          missing.add("socat");
        }
        if (missing.isEmpty()) {
          return new ProbeResult(platform, true, "bwrap", BUBBLEWRAP_NOTE, false, List.of(), null);
        }
        return new ProbeResult(
            platform, false, null, null, true, missing,
            "sudo apt-get install " + String.join(" ", missing));
      default:
        return new ProbeResult(platform, false, null, null, false, List.of(), NOT_OFFERED);
    }
  }

  /** Probes this host. */
  public static ProbeResult probe() {
    return probe(Platform.current(), Executables.system());
  }
}
