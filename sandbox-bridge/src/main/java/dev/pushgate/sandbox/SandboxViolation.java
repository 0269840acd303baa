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

  public SandboxViolation {
    if (action == null || action.isBlank()) {
      throw new IllegalArgumentException("a violation needs an action");
    }
    if (target == null) {
      throw new IllegalArgumentException("a violation needs a target");
    }
  }
}
