package dev.pushgate.appliance.cli;

import java.util.Collection;
import java.util.Locale;
import java.util.Optional;

/**
 * "Did you mean" for a misspelt key, variable or option: the closest known name within two edits,
 * or the one known name the unknown one starts (or is a start of), so a typo is named with its fix.
 */
final class Suggest {
  static final int MAX_EDITS = 2;

  private Suggest() {}

  /** The known name closest to {@code unknown}, if one is close enough to be meant. */
  static Optional<String> closest(String unknown, Collection<String> known) {
    String u = unknown.toLowerCase(Locale.ROOT);
    String best = null;
    int bestEdits = MAX_EDITS + 1;
    for (String k : known) {
      int d = edits(u, k.toLowerCase(Locale.ROOT));
      // two edits turn any short name into another ("-x" into "-h"): only longer names count
      if (d < bestEdits && d < k.length() - 1) {
        best = k;
        bestEdits = d;
      }
    }
    if (best != null) {
      return Optional.of(best);
    }
    // a cut-short or over-long name: only when exactly one known name fits
    var prefixed = known.stream().filter(k -> {
      String l = k.toLowerCase(Locale.ROOT);
      return u.length() >= 3 && (l.startsWith(u) || u.startsWith(l));
    }).toList();
    return prefixed.size() == 1 ? Optional.of(prefixed.get(0)) : Optional.empty();
  }

  /** {@code " (did you mean X?)"}, or nothing. */
  static String hint(String unknown, Collection<String> known) {
    return closest(unknown, known).map(k -> " (did you mean " + k + "?)").orElse("");
  }

  /** Levenshtein distance. */
  static int edits(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int sub = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        cur[j] = Math.min(sub, Math.min(prev[j], cur[j - 1]) + 1);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
