package dev.pushgate.gateway.api;

import dev.pushgate.types.RepoSlug;
import java.util.Optional;

/**
 * Tells a repository's default branch, for a contents write that names no branch (GitHub then
 * writes to the default branch). Empty when it is not known: the write is then denied.
 */
@FunctionalInterface
public interface DefaultBranches {
  /** Knows no repository's default branch: every contents write must name its branch. */
  DefaultBranches UNKNOWN = repo -> Optional.empty();

  /** The default branch's name ({@code main}, not {@code refs/heads/main}), if known. */
  Optional<String> of(RepoSlug repo);
}
