package dev.pushgate.policy;

import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;

/**
 * One content rule: which pushed files it looks at ({@code paths}, {@code files}; neither means
 * every file) and what of their content it looks for ({@code maxSize}, {@code binary}, {@code
 * secrets}; none means the file itself, so a name rule such as "no secret files" matches the
 * file's mere presence). A file matches when it is in scope and, if a content condition is
 * given, meets one of them.
 *
 * @param secrets the secret detectors to run: empty for none, {@link #ALL_SECRETS} for every
 *     detector, otherwise gitleaks rule ids
 */
public record ContentRule(
    String name,
    List<ContentGlob> paths,
    List<ContentGlob> files,
    OptionalLong maxSize,
    boolean binary,
    Set<String> secrets,
    Decision decision,
    String reason) {
  /** The {@code secrets} value that runs every detector. */
  public static final Set<String> ALL_SECRETS = Set.of("all");

  public ContentRule {
    Objects.requireNonNull(name, "name");
    paths = List.copyOf(paths);
    files = List.copyOf(files);
    ContentGlob.checkList(paths);
    ContentGlob.checkList(files);
    Objects.requireNonNull(maxSize, "maxSize");
    secrets = Set.copyOf(secrets);
    Objects.requireNonNull(decision, "decision");
  }

  /** Whether the rule reads blob content (size, binary, secrets), not only paths. */
  public boolean readsContent() {
    return maxSize.isPresent() || binary || !secrets.isEmpty();
  }

  /**
   * Whether the path is in the rule's scope: every given glob list has a match. {@code files}
   * match the file's name and, for a rule that refuses or asks, the name of any directory on its
   * path: the sandbox's name-deny layer refuses {@code mkdir .env} by the same globs, so a push
   * of {@code .env/config} is refused too (docs/policy.md). An allow is an exception to the
   * rules after it and is read narrowly: its {@code files} match the file's name only.
   */
  public boolean covers(String path) {
    return (paths.isEmpty() || ContentGlob.listMatches(paths, path))
        && (files.isEmpty() || namesIn(decision == Decision.ALLOW
            ? path.substring(path.lastIndexOf('/') + 1) : path));
  }

  /**
   * Whether a symlink to {@code target} is in the scope of a rule that refuses or asks by {@code
   * files} alone: a segment of the target matches them. The sandbox refuses making such a link
   * ({@code link -> .env}); the push refuses bringing one, in the rule's words.
   */
  public boolean coversLinkTarget(String target) {
    return decision != Decision.ALLOW && paths.isEmpty() && !files.isEmpty() && !readsContent()
        && namesIn(target);
  }

  /** Whether one of the path's segments matches {@code files}, each judged with its exceptions. */
  private boolean namesIn(String path) {
    for (String segment : path.split("/")) {
      if (!segment.isEmpty() && ContentGlob.listMatches(files, segment)) {
        return true;
      }
    }
    return false;
  }

  /** Whether the rule runs the detector with this gitleaks id. */
  public boolean runsDetector(String id) {
    return secrets.equals(ALL_SECRETS) || secrets.contains(id);
  }
}
