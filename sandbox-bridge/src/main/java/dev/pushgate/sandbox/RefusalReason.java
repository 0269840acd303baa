package dev.pushgate.sandbox;

import dev.pushgate.types.UntrustedText;

/**
 * Why the sandbox refused something, in words an agent can act on: a policy refusal must not read
 * as a broken disk ({@code Permission denied}, {@code Read-only file system} alone do). The one
 * text every reader shows: {@code pushgate exec}, {@code pushgate launch}, the launch stream and
 * the log the run's {@code PostToolUse} hook reads inside the sandbox.
 */
public final class RefusalReason {
  /** What the name-deny layer's reports start with (written in {@link NameDenyLayer}). */
  static final String NAME_DENY_LAYER = "denied by the name-deny layer";

  private RefusalReason() {}

  /** Whether the name-deny layer made this report (not a line of the command's errors). */
  static boolean fromNameDenyLayer(SandboxViolation v) {
    return ViolationParser.FILE_WRITE.equals(v.action()) && v.raw() != null
        && v.raw().startsWith(NAME_DENY_LAYER);
  }

  /** The reason for {@code v}, one sentence without a line break. */
  public static String of(SandboxViolation v) {
    String raw = v.raw() == null ? "" : v.raw();
    return switch (v.action()) {
      case ViolationParser.FILE_WRITE -> fromNameDenyLayer(v)
          ? "the run's rules deny writing a file of this name (a secret file such as .env, *.key or"
              + " *.pem, or a protected path); keep such a file out of the checkout, or ask the"
              + " operator to change the rules"
          : "the sandbox keeps this path read-only: it is outside the run's writable directories,"
              + " or one the run may not change (git metadata such as .git/config and hooks, agent"
              + " and editor settings, shell startup files)";
      case ViolationParser.FILE_READ ->
          "the sandbox hides this path: a secret (such as ~/.ssh or ~/.aws) or a directory that"
              + " is not the run's";
      case ViolationParser.NETWORK ->
          "the run's network reaches only the hosts on its egress allowlist; ask the operator to"
              + " allow this host";
      case ViolationParser.SYSCALL -> "the sandbox does not allow this operation";
      case SandboxViolation.GIT_METADATA -> raw;
      default -> "refused by the sandbox";
    };
  }

  /**
   * One line naming the refusal and its reason, {@code file-write* /w/.env: the run's rules …};
   * the target (from a command's error output) with its control characters escaped.
   */
  public static String line(SandboxViolation v) {
    return v.action() + " " + UntrustedText.printable(v.target()) + ": " + of(v);
  }
}
