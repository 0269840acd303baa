package dev.pushgate.broker;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The permission sets the broker asks for, and the comparison of a grant against the ask. */
final class Permissions {
  /** What a run may do: read code, open pull requests, but never push. */
  static final Map<String, String> READ =
      Map.of("contents", "read", "pull_requests", "write", "metadata", "read");

  private Permissions() {}

  /** What the gateway needs to forward a push; {@code workflows} to touch .github/workflows. */
  static Map<String, String> write(boolean workflows) {
    return workflows
        ? Map.of("contents", "write", "metadata", "read", "workflows", "write")
        : Map.of("contents", "write", "metadata", "read");
  }

  /** Each granted permission that was not asked for, or is above the asked level. */
  static List<String> excess(Map<String, String> asked, Map<String, String> granted) {
    List<String> out = new ArrayList<>();
    new TreeMap<>(granted).forEach((name, level) -> {
      String want = asked.get(name);
      if (want == null) {
        out.add(name + ": " + level + " (not asked)");
      } else if (rank(level) > rank(want)) {
        out.add(name + ": " + level + " (asked " + want + ")");
      }
    });
    return out;
  }

  /** Each asked permission that was not granted at the asked level. */
  static List<String> shortfall(Map<String, String> asked, Map<String, String> granted) {
    List<String> out = new ArrayList<>();
    new TreeMap<>(asked).forEach((name, want) -> {
      String level = granted.get(name);
      if (level == null) {
        out.add(name + ": " + want + " (not granted)");
      } else if (rank(level) < rank(want)) {
        out.add(name + ": " + want + " (granted " + level + ")");
      }
    });
    return out;
  }

  /** An unknown level ranks above everything, so it always counts as more than asked. */
  private static int rank(String level) {
    return switch (level) {
      case "read" -> 1;
      case "write" -> 2;
      case "admin" -> 3;
      default -> Integer.MAX_VALUE;
    };
  }
}
