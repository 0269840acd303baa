package dev.pushgate.gateway;

import dev.pushgate.policy.ContentRule;
import dev.pushgate.policy.ContentRules;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The secret scanner's detectors that a set of content rules runs, over a file and over a text
 * (the text without the generic, entropy-based ones), each picked once, at the first scan that
 * needs it: asking the rules about each of gitleaks' some 220 detectors was most of judging a
 * comment's text (issue 33, docs/benchmarks.md). A function of the rules alone, never of what is
 * judged: picked once for a run's rules ({@link #of}), for every push and call judged by them,
 * and every scan still runs on every file and text. Safe to share between
 * threads: a pick made twice at once makes the same selection.
 */
public final class RuleDetectors {
  /**
   * The standard scanner's detectors picked for the rule sets judged by lately, by identity: a
   * run's pushes are all judged by one instance of its rules, so a push's judge finds them picked
   * by the run's first (a tenth of a small push's judgement, docs/benchmarks.md). Bounded: a set
   * seen again after the map was emptied is picked again.
   */
  private static final Map<ContentRules, RuleDetectors> LATELY = new IdentityHashMap<>();
  private static final int KEPT = 256;

  private final ContentRules rules;
  private final SecretScanner scanner;
  private volatile SecretScanner.Selection forFiles;
  private volatile SecretScanner.Selection forText;

  RuleDetectors(ContentRules rules, SecretScanner scanner) {
    this.rules = Objects.requireNonNull(rules, "rules");
    this.scanner = Objects.requireNonNull(scanner, "scanner");
  }

  /** The standard scanner's detectors that {@code rules} run. */
  public static RuleDetectors of(ContentRules rules) {
    Objects.requireNonNull(rules, "rules");
    synchronized (LATELY) {
      RuleDetectors picked = LATELY.get(rules);
      if (picked == null) {
        if (LATELY.size() >= KEPT) {
          LATELY.clear();
        }
        picked = new RuleDetectors(rules, SecretScanner.standard());
        LATELY.put(rules, picked);
      }
      return picked;
    }
  }

  public ContentRules rules() {
    return rules;
  }

  SecretScanner scanner() {
    return scanner;
  }

  /** The detectors with a regex any rule runs, for a file's content. */
  SecretScanner.Selection forFiles() {
    SecretScanner.Selection s = forFiles;
    if (s == null) {
      s = scanner.select(this::anyRuleRuns);
      forFiles = s;
    }
    return s;
  }

  /** The provider-specific detectors with a regex any rule runs, for a text made visible. */
  SecretScanner.Selection forText() {
    SecretScanner.Selection s = forText;
    if (s == null) {
      s = scanner.select(id -> !SecretScanner.isGeneric(id) && anyRuleRuns(id));
      forText = s;
    }
    return s;
  }

  /** Whether any of the rules runs detector {@code detectorId}. */
  boolean anyRuleRuns(String detectorId) {
    for (ContentRule r : rules.rules()) {
      if (r.runsDetector(detectorId)) {
        return true;
      }
    }
    return false;
  }
}
