package dev.pushgate.policy;

import static dev.pushgate.policy.RulesReader.decision;
import static dev.pushgate.policy.RulesReader.describe;
import static dev.pushgate.policy.RulesReader.fail;
import static dev.pushgate.policy.RulesReader.reason;
import static dev.pushgate.policy.RulesReader.shorten;
import static dev.pushgate.policy.RulesReader.string;

import dev.pushgate.policy.RulesReader.ListNode;
import dev.pushgate.policy.RulesReader.MapNode;
import dev.pushgate.policy.RulesReader.Node;
import dev.pushgate.policy.RulesReader.ScalarKind;
import dev.pushgate.policy.RulesReader.ScalarNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Validates the {@code content} key of a rules document: a list of {@link ContentRule}s. */
final class ContentRulesReader {
  static final int MAX_RULES = 100;
  static final int MAX_NAME = 80;
  private static final Pattern SIZE =
      Pattern.compile("([0-9]{1,10})\\s*(B|KiB|MiB|GiB|KB|MB|GB)?");

  private ContentRulesReader() {}

  static ContentRules content(Node n) throws RulesException {
    if (!(n instanceof ListNode list)) {
      throw fail(n.where(), "wrong type: 'content' must be a list of content rules, not "
          + describe(n));
    }
    if (list.items().size() > MAX_RULES) {
      throw fail(n.where(), "more than " + MAX_RULES + " content rules");
    }
    List<ContentRule> rules = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (Node item : list.items()) {
      ContentRule r = rule(item);
      if (!names.add(r.name())) {
        throw fail(item.where(), "duplicate content rule name '" + r.name() + "'");
      }
      rules.add(r);
    }
    return new ContentRules(rules, true);
  }

  private static ContentRule rule(Node n) throws RulesException {
    if (!(n instanceof MapNode map)) {
      throw fail(n.where(), "wrong type: a content rule must be a mapping with name and decision,"
          + " not " + describe(n));
    }
    String name = null;
    List<ContentGlob> paths = List.of();
    List<ContentGlob> files = List.of();
    OptionalLong maxSize = OptionalLong.empty();
    boolean binary = false;
    Set<String> secrets = Set.of();
    Decision decision = null;
    String reason = null;
    for (RulesReader.Entry e : map.entries()) {
      switch (e.key()) {
        case "name" -> name = name(e.value());
        case "paths" -> paths = globs(e.value(), "paths", ContentGlob::path);
        case "files" -> files = globs(e.value(), "files", ContentGlob::name);
        case "maxSize" -> maxSize = OptionalLong.of(size(e.value()));
        case "binary" -> binary = binary(e.value());
        case "secrets" -> secrets = secrets(e.value());
        case "decision" -> decision = decision(e.value(), "decision");
        case "reason" -> reason = reason(e.value());
        default -> throw fail(e.keyWhere(), "unknown key '" + e.key() + "' in a content rule"
            + " (expected name, paths, files, maxSize, binary, secrets, decision or reason)");
      }
    }
    if (name == null) {
      throw fail(map.where(), "a content rule is missing 'name'");
    }
    if (decision == null) {
      throw fail(map.where(), "content rule '" + name + "' is missing 'decision'");
    }
    if (paths.isEmpty() && files.isEmpty() && maxSize.isEmpty() && !binary && secrets.isEmpty()) {
      throw fail(map.where(), "content rule '" + name + "' matches nothing (give paths, files,"
          + " maxSize, binary or secrets)");
    }
    return new ContentRule(name, paths, files, maxSize, binary, secrets, decision, reason);
  }

  private static String name(Node n) throws RulesException {
    String s = string(n, "name").strip();
    if (s.isEmpty()) {
      throw fail(n.where(), "empty content rule name");
    }
    if (s.length() > MAX_NAME) {
      throw fail(n.where(), "content rule name is longer than " + MAX_NAME + " characters");
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c == 0x7f || c == '"') {
        throw fail(n.where(), "content rule name has a control character or a '\"'");
      }
    }
    return s;
  }

  private interface GlobFactory extends Function<String, ContentGlob> {}

  private static List<ContentGlob> globs(Node n, String key, GlobFactory make)
      throws RulesException {
    if (!(n instanceof ListNode list)) {
      throw fail(n.where(), "wrong type: '" + key + "' must be a list of globs, not "
          + describe(n));
    }
    if (list.items().isEmpty()) {
      throw fail(n.where(), "'" + key + "' is empty (leave it out to cover every file)");
    }
    List<ContentGlob> out = new ArrayList<>();
    for (Node item : list.items()) {
      String g = string(item, "a glob");
      try {
        out.add(make.apply(g));
      } catch (IllegalArgumentException e) {
        throw fail(item.where(), "bad glob: " + e.getMessage());
      }
    }
    try {
      ContentGlob.checkList(out);
    } catch (IllegalArgumentException e) {
      throw fail(n.where(), "bad '" + key + "': " + e.getMessage());
    }
    return out;
  }

  /** {@code 10MiB}, {@code 512 KiB}, {@code 1GB} (powers of ten), or a number of bytes. */
  static long size(Node n) throws RulesException {
    if (n instanceof ScalarNode s && (s.kind() == ScalarKind.STRING
        || s.kind() == ScalarKind.NUMBER)) {
      Matcher m = SIZE.matcher(s.text().strip());
      if (m.matches()) {
        long unit = switch (m.group(2) == null ? "B" : m.group(2)) {
          case "KiB" -> 1L << 10;
          case "MiB" -> 1L << 20;
          case "GiB" -> 1L << 30;
          case "KB" -> 1_000L;
          case "MB" -> 1_000_000L;
          case "GB" -> 1_000_000_000L;
          default -> 1L;
        };
        long value = Long.parseLong(m.group(1));
        if (value > 0 && value <= (Long.MAX_VALUE / unit)) {
          return value * unit;
        }
      }
      throw fail(n.where(), "bad size '" + shorten(s.text())
          + "' (expected a positive number of bytes, or with B, KiB, MiB, GiB, KB, MB or GB)");
    }
    throw fail(n.where(), "wrong type: 'maxSize' must be a size such as 10MiB, not " + describe(n));
  }

  private static boolean binary(Node n) throws RulesException {
    if (n instanceof ScalarNode s && s.kind() == ScalarKind.BOOLEAN) {
      if (s.text().equals("true")) {
        return true;
      }
      throw fail(n.where(), "'binary: false' means nothing (leave 'binary' out)");
    }
    throw fail(n.where(), "wrong type: 'binary' must be true, not " + describe(n));
  }

  private static Set<String> secrets(Node n) throws RulesException {
    if (n instanceof ScalarNode s && s.kind() == ScalarKind.STRING && s.text().equals("all")) {
      return ContentRule.ALL_SECRETS;
    }
    if (!(n instanceof ListNode list)) {
      throw fail(n.where(), "wrong type: 'secrets' must be all or a list of detector ids, not "
          + describe(n));
    }
    if (list.items().isEmpty()) {
      throw fail(n.where(), "'secrets' is empty (leave it out to detect no secrets)");
    }
    Set<String> known = SecretDetectors.standard().ids();
    Set<String> ids = new LinkedHashSet<>();
    for (Node item : list.items()) {
      String id = string(item, "a detector id").toLowerCase(Locale.ROOT);
      if (!known.contains(id)) {
        throw fail(item.where(), "unknown secret detector '" + shorten(id)
            + "' (expected all or gitleaks rule ids such as github-pat, aws-access-token)");
      }
      if (!ids.add(id)) {
        throw fail(item.where(), "duplicate secret detector '" + id + "'");
      }
    }
    return ids;
  }
}
