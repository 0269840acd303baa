package dev.pushgate.policy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.toml.TomlMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;

/**
 * The secret detectors: gitleaks' default rule set, shipped as data ({@code gitleaks.toml} next to
 * this class, MIT licence in {@code gitleaks-LICENSE.txt}, source commit in {@code
 * gitleaks-SOURCE.txt}). Gitleaks writes Go RE2 regexes; each is compiled as written with RE2/J,
 * the same dialect, which matches in time linear in the text (java.util.regex backtracks, and a
 * crafted file could hold a push for minutes). A rule that does not compile is left out and
 * listed in {@link #skipped()}, so a new gitleaks version cannot silently lose detectors. After
 * them come pushgate's own detectors ({@link #OWN_IDS}), for secrets gitleaks has no rule for.
 */
public final class SecretDetectors {
  static final String RESOURCE = "gitleaks.toml";

  private final Map<String, SecretDetector> detectors;
  private final Map<String, String> skipped;
  private final SecretDetector.Allowlist global;

  private SecretDetectors(Map<String, SecretDetector> detectors, Map<String, String> skipped,
      SecretDetector.Allowlist global) {
    this.detectors = detectors;
    this.skipped = skipped;
    this.global = global;
  }

  private static final class Standard {
    static final SecretDetectors INSTANCE = load();
  }

  /** The shipped rule set, read once. */
  public static SecretDetectors standard() {
    return Standard.INSTANCE;
  }

  /** pushgate's own detectors' ids: not gitleaks rules, refusals say so. */
  public static final Set<String> OWN_IDS = Set.of(ConnectionUrlPassword.ID);

  /** These detectors and {@code own}, after them. */
  private SecretDetectors with(SecretDetector own) {
    Map<String, SecretDetector> all = new LinkedHashMap<>(detectors);
    if (all.putIfAbsent(own.id(), own) != null) {
      throw new IllegalStateException("gitleaks has a rule with pushgate's id " + own.id());
    }
    return new SecretDetectors(all, skipped, global);
  }

  /** Every detector that compiled, by gitleaks id, in file order, then pushgate's own. */
  public List<SecretDetector> all() {
    return List.copyOf(detectors.values());
  }

  public Set<String> ids() {
    return detectors.keySet();
  }

  /** Gitleaks rules left out, by id, with why. */
  public Map<String, String> skipped() {
    return skipped;
  }

  /** Gitleaks' global allowlist: candidates every detector lets pass. */
  public SecretDetector.Allowlist globalAllowlist() {
    return global;
  }

  private static SecretDetectors load() {
    try (InputStream in = SecretDetectors.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is missing from the classpath");
      }
      return read(new TomlMapper().readTree(in)).with(ConnectionUrlPassword.DETECTOR);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + RESOURCE, e);
    }
  }

  static SecretDetectors read(JsonNode doc) {
    Map<String, SecretDetector> detectors = new LinkedHashMap<>();
    Map<String, String> skipped = new LinkedHashMap<>();
    for (JsonNode r : doc.path("rules")) {
      String id = r.path("id").asText();
      try {
        Pattern regex = r.has("regex") ? compile(r.get("regex").asText()) : null;
        String stripped = r.has("regex") ? withoutLazyPrefix(r.get("regex").asText()) : null;
        Pattern fast = stripped == null || stripped.equals(r.get("regex").asText()) ? null
            : compile(stripped);
        Pattern path = r.has("path") ? compile(r.get("path").asText()) : null;
        if (regex == null && path == null) {
          skipped.put(id, "neither regex nor path");
          continue;
        }
        List<String> keywords = new ArrayList<>();
        r.path("keywords").forEach(k -> keywords.add(k.asText().toLowerCase(Locale.ROOT)));
        List<SecretDetector.Allowlist> allowlists = new ArrayList<>();
        for (JsonNode a : r.path("allowlists")) {
          allowlists.add(allowlist(a));
        }
        if (r.has("allowlist")) {
          allowlists.add(allowlist(r.get("allowlist")));
        }
        List<String> anchors = stripped == null ? List.of()
            : List.copyOf(LeadingLiterals.of(stripped).orElse(Set.of()));
        detectors.put(id, new SecretDetector(id, r.path("description").asText(), regex, fast,
            stripped == null ? null : javaPrefilter(stripped), path, r.path("secretGroup").asInt(0), r.path("entropy").asDouble(0), keywords,
            anchors, allowlists));
      } catch (PatternSyntaxException e) {
        skipped.put(id, "regex does not compile in RE2/J: " + e.getMessage());
      }
    }
    return new SecretDetectors(detectors, skipped, globalAllowlist(doc.path("allowlist")));
  }

  /** Gitleaks' global allowlist, leaving out the regexes RE2/J cannot compile (fail closed). */
  private static SecretDetector.Allowlist globalAllowlist(JsonNode a) {
    return new SecretDetector.Allowlist(compileEach(a.path("regexes")), target(a),
        words(a.path("stopwords")), compileEach(a.path("paths")), isAnd(a));
  }

  private static SecretDetector.Allowlist allowlist(JsonNode a) {
    List<Pattern> regexes = new ArrayList<>();
    for (JsonNode re : a.path("regexes")) {
      regexes.add(compile(re.asText()));
    }
    List<Pattern> paths = new ArrayList<>();
    for (JsonNode re : a.path("paths")) {
      paths.add(compile(re.asText()));
    }
    return new SecretDetector.Allowlist(regexes, target(a), words(a.path("stopwords")), paths,
        isAnd(a));
  }

  private static List<Pattern> compileEach(JsonNode list) {
    List<Pattern> out = new ArrayList<>();
    for (JsonNode re : list) {
      try {
        out.add(compile(re.asText()));
      } catch (PatternSyntaxException e) {
        // An allowlist entry left out only makes detection stricter.
      }
    }
    return out;
  }

  private static SecretDetector.Target target(JsonNode a) {
    return switch (a.path("regexTarget").asText("secret")) {
      case "match" -> SecretDetector.Target.MATCH;
      case "line" -> SecretDetector.Target.LINE;
      default -> SecretDetector.Target.SECRET;
    };
  }

  private static boolean isAnd(JsonNode a) {
    return a.path("condition").asText("OR").equalsIgnoreCase("AND");
  }

  private static List<String> words(JsonNode list) {
    List<String> out = new ArrayList<>();
    list.forEach(w -> out.add(w.asText().toLowerCase(Locale.ROOT)));
    return out;
  }

  /** Compiles a Go RE2 regex with RE2/J, as written. */
  static Pattern compile(String re2) {
    return Pattern.compile(re2);
  }

  private static final java.util.regex.Pattern LAZY_PREFIX =
      java.util.regex.Pattern.compile("^((?:\\(\\?i\\)|\\(\\?i:)*)\\[\\\\w\\.-\\]\\{0,[0-9]+\\}\\?");

  /**
   * The regex without the lazy {@code [\w.-]{0,N}?} gitleaks' generated rules start with (also
   * nested at the start of a leading {@code (?i:} group). Each is optional and only extends a
   * match to the left, so every match of the original ends where a match of this one ends.
   */
  static String withoutLazyPrefix(String re2) {
    String s = re2;
    while (true) {
      String t = LAZY_PREFIX.matcher(s).replaceFirst("$1");
      if (t.equals(s)) {
        return s;
      }
      s = t;
    }
  }

  /**
   * The same regex for java.util.regex, translating what the dialects spell apart, or null when
   * Java cannot compile it. Only a prefilter: a scanner asks it, under a read budget, whether an
   * anchored match can start at an offset, and takes every match itself from RE2/J.
   */
  static java.util.regex.Pattern javaPrefilter(String re2) {
    String translated = literalBraces(javaGroupNames(re2))
        .replace("[:alnum:]", "\\p{Alnum}")
        .replace("[:alpha:]", "\\p{Alpha}")
        .replace("[:digit:]", "\\p{Digit}")
        .replace("[:xdigit:]", "\\p{XDigit}")
        .replace("[:upper:]", "\\p{Upper}")
        .replace("[:lower:]", "\\p{Lower}")
        .replace("[:space:]", "\\s")
        .replace("[:punct:]", "\\p{Punct}")
        .replace("[:word:]", "\\w");
    try {
      return java.util.regex.Pattern.compile(translated);
    } catch (java.util.regex.PatternSyntaxException e) {
      return null;
    }
  }

  /** {@code (?P<key_ops>} to {@code (?<keyops>}: Java's group names are letters and digits. */
  private static String javaGroupNames(String re) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\(\\?P<([^>]*)>").matcher(re);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(out, java.util.regex.Matcher.quoteReplacement(
          "(?<" + m.group(1).replaceAll("[^A-Za-z0-9]", "") + ">"));
    }
    return m.appendTail(out).toString();
  }

  /** RE2 reads a brace that starts no repetition as itself; Java refuses it unless escaped. */
  private static String literalBraces(String re) {
    StringBuilder out = new StringBuilder(re.length() + 8);
    boolean inClass = false;
    for (int i = 0; i < re.length(); i++) {
      char c = re.charAt(i);
      if (c == '\\' && i + 1 < re.length()) {
        out.append(c).append(re.charAt(++i));
        continue;
      }
      if (inClass) {
        inClass = c != ']' || out.charAt(out.length() - 1) == '[';
        out.append(c);
        continue;
      }
      if (c == '[') {
        inClass = true;
        out.append(c);
        if (i + 1 < re.length() && re.charAt(i + 1) == '^') {
          out.append(re.charAt(++i));
        }
        continue;
      }
      if (c == '{') {
        int close = re.indexOf('}', i);
        boolean repetition = close > i && re.substring(i + 1, close).matches("[0-9]+(,[0-9]*)?");
        if (repetition) {
          out.append(re, i, close + 1);
          i = close;
          continue;
        }
        out.append("\\{");
        continue;
      }
      out.append(c == '}' ? "\\}" : String.valueOf(c));
    }
    return out.toString();
  }
}
