package dev.pushgate.policy;

import java.util.List;
import java.util.Optional;
import com.google.re2j.Matcher;
import com.google.re2j.Pattern;

/**
 * One gitleaks rule, compiled with RE2/J (Go's RE2 dialect, as gitleaks writes it, in time linear
 * in the text whatever the text): what a secret of one kind looks like, the
 * keywords one of which must occur near it (a cheap prefilter: the regex runs only on text that
 * holds a keyword), the least Shannon entropy a real one has, and the rule's own allowlists.
 *
 * @param regex null for a rule that matches file paths only
 * @param fast null, or {@code regex} without its leading lazy {@code [\w.-]{0,50}?}: it finds
 *     the same secrets at the same ends (the prefix only widens a match to the left), without
 *     trying 50 prefix lengths at every offset of the text; a scanner finds candidates with it
 *     and takes the match itself from {@code regex} around each
 * @param prefilter null, or {@code fast} (else {@code regex}) for java.util.regex: never the
 *     judge of a match, only a quick "no match starts here" at an anchor, under a read budget
 *     (it backtracks), before RE2/J is asked
 * @param path null unless the rule applies to (or, without a regex, is) matching paths only
 * @param secretGroup the regex group holding the secret; 0: the first group that matched, or the
 *     whole match when the regex has no group (gitleaks' own choice)
 * @param anchors empty, or the lower-cased texts every match of {@code fast} (or {@code regex})
 *     starts with: a scanner need try the regex only where one of them occurs
 * @param entropy 0 for none; a candidate whose secret has no more entropy is not a finding
 */
public record SecretDetector(
    String id,
    String description,
    Pattern regex,
    Pattern fast,
    java.util.regex.Pattern prefilter,
    Pattern path,
    int secretGroup,
    double entropy,
    List<String> keywords,
    List<String> anchors,
    List<Allowlist> allowlists) {
  public SecretDetector {
    keywords = List.copyOf(keywords);
    anchors = List.copyOf(anchors);
    allowlists = List.copyOf(allowlists);
  }

  /** What a gitleaks allowlist checks: a candidate that it matches is not a finding. */
  public enum Target {
    SECRET,
    MATCH,
    LINE
  }

  /**
   * A gitleaks allowlist. {@code and}: every check given must match (gitleaks' {@code condition =
   * "AND"}); otherwise any one.
   */
  public record Allowlist(List<Pattern> regexes, Target target, List<String> stopwords,
      List<Pattern> paths, boolean and) {
    public Allowlist {
      regexes = List.copyOf(regexes);
      stopwords = List.copyOf(stopwords);
      paths = List.copyOf(paths);
    }

    /** Whether the candidate is allowed, that is not a finding. */
    public boolean allows(String path, String secret, String match, String line) {
      String target = switch (this.target) {
        case SECRET -> secret;
        case MATCH -> match;
        case LINE -> line;
      };
      Optional<Boolean> byRegex = regexes.isEmpty() ? Optional.empty()
          : Optional.of(regexes.stream().anyMatch(r -> r.matcher(target).find()));
      String lower = secret.toLowerCase(java.util.Locale.ROOT);
      Optional<Boolean> byWord = stopwords.isEmpty() ? Optional.empty()
          : Optional.of(stopwords.stream().anyMatch(lower::contains));
      Optional<Boolean> byPath = paths.isEmpty() ? Optional.empty()
          : Optional.of(paths.stream().anyMatch(r -> r.matcher(path).find()));
      List<Boolean> given = List.of(byRegex, byWord, byPath).stream()
          .flatMap(Optional::stream).toList();
      if (given.isEmpty()) {
        return false;
      }
      return and ? given.stream().allMatch(b -> b) : given.stream().anyMatch(b -> b);
    }
  }

  /** Whether the detector applies to a file at {@code path} at all. */
  public boolean appliesTo(String path) {
    return this.path == null || this.path.matcher(path).find();
  }

  /**
   * One match of a detector's regex: where it is in the scanned text, and its groups' texts
   * (index 0 the whole match; null for a group that did not take part).
   */
  public record Match(int start, int end, List<String> groups) {
    public Match {
      groups = java.util.Collections.unmodifiableList(new java.util.ArrayList<>(groups));
    }

    /** The matcher's current match, its offsets moved by {@code offset}. */
    public static Match of(Matcher m, int offset) {
      List<String> groups = new java.util.ArrayList<>(m.groupCount() + 1);
      for (int g = 0; g <= m.groupCount(); g++) {
        groups.add(m.group(g));
      }
      return new Match(m.start() + offset, m.end() + offset, groups);
    }

    public String group() {
      return groups.get(0);
    }

    public int groupCount() {
      return groups.size() - 1;
    }

    public String group(int g) {
      return groups.get(g);
    }
  }

  /** The secret of a match: {@link #secretGroup}'s text, as gitleaks picks it. */
  public String secretOf(Match m) {
    if (secretGroup > 0 && secretGroup <= m.groupCount()) {
      String s = m.group(secretGroup);
      return s == null ? m.group() : s;
    }
    for (int g = 1; g <= m.groupCount(); g++) {
      if (m.group(g) != null && !m.group(g).isEmpty()) {
        return m.group(g);
      }
    }
    return m.group();
  }

  /** Shannon entropy in bits per character, as gitleaks computes it. */
  public static double shannonEntropy(String s) {
    if (s.isEmpty()) {
      return 0;
    }
    java.util.Map<Character, Integer> counts = new java.util.HashMap<>();
    for (int i = 0; i < s.length(); i++) {
      counts.merge(s.charAt(i), 1, Integer::sum);
    }
    double h = 0;
    for (int c : counts.values()) {
      double p = (double) c / s.length();
      h -= p * (Math.log(p) / Math.log(2));
    }
    return h;
  }
}
