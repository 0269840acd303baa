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

  /** Whether the path is in the rule's scope: every given glob list has a match. */
  public boolean covers(String path) {
    String name = path.substring(path.lastIndexOf('/') + 1);
    return (paths.isEmpty() || ContentGlob.listMatches(paths, path))
        && (files.isEmpty() || ContentGlob.listMatches(files, name));
  }

  /** Whether the rule runs the detector with this gitleaks id. */
  public boolean runsDetector(String id) {
    return secrets.equals(ALL_SECRETS) || secrets.contains(id);
  }
}
