package dev.pushgate.policy;

import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

/**
 * A workspace's content rules, judged on what a push brings that upstream does not have. For each
 * pushed file the first rule in document order that matches it decides, so an exception (an
 * {@code allow} for test fixtures) goes before the rule it excepts.
 *
 * @param explicit whether the document gave {@code content} itself ({@code []} counts)
 */
public record ContentRules(List<ContentRule> rules, boolean explicit) {
  /** What a document without {@code content} gets: secret files and detected secrets denied. */
  public static final ContentRules DEFAULT = new ContentRules(List.of(
      new ContentRule("no secret files", List.of(),
          SecretFiles.NAME_GLOBS,
          OptionalLong.empty(), false, Set.of(), Decision.DENY, null),
      new ContentRule("no secrets", List.of(), List.of(), OptionalLong.empty(), false,
          ContentRule.ALL_SECRETS, Decision.DENY, null)), false);

  public ContentRules {
    rules = List.copyOf(rules);
  }

  /** The strictest decision any rule can give (allow when there are none). */
  public Decision strictest() {
    return rules.stream().map(ContentRule::decision).reduce(Decision.ALLOW, Decision::strictest);
  }
}
