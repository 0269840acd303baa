package dev.pushgate.sandbox;

/**
 * A denied operation, as the sandbox reported it.
 *
 * @param action the denied verb, e.g. {@code file-read*} or {@code network-outbound}
 * @param target the path or host the operation aimed at
 * @param raw the raw log line, or null
 */
public record SandboxViolation(String action, String target, String raw) {
  /**
   * The action of what a run left in a worktree's git metadata and the launcher undid when it
   * ended; {@code raw} says what was found and what was done.
   */
  public static final String GIT_METADATA = "git-metadata";

  /**
   * The action of a file at a worktree's root that a tool on the operator's side runs (direnv's
   * {@code .envrc}, an editor's tasks, pre-commit's config, a {@code Makefile}) and that the run
   * created or changed; reported when it ends, left in place. {@code raw} says which tool.
   */
  public static final String HOST_TOOL_FILE = "host-tool-file";

  /**
   * Whether this is a finding of the end-of-run check, whose {@code raw} says what was found and
   * what was done: the operator acts on it, so every report shows it.
   */
  public boolean endOfRun() {
    return GIT_METADATA.equals(action) || HOST_TOOL_FILE.equals(action);
  }

  public SandboxViolation {
    if (action == null || action.isBlank()) {
      throw new IllegalArgumentException("a violation needs an action");
    }
    if (target == null) {
      throw new IllegalArgumentException("a violation needs a target");
    }
  }
}
