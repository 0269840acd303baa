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

  /**
   * Why git could not write a repository's config: most often {@code git push -u} or {@code git
   * branch --set-upstream-to} storing an upstream where the name-deny layer does not run (the
   * config is then bound read-only), after which git 2.39 still prints "set up to track" (it
   * ignores the failed write). docs/sandbox.md, "The repository's .git/config: only an upstream".
   */
  static final String REPOSITORY_CONFIG = "git stored nothing in the repository's .git/config (a git"
      + " on the host may read it while the run lives: a run may store only a branch's upstream"
      + " there, and only where the name-deny layer runs), so an upstream git says it set up is"
      + " not set; push with git push origin HEAD, pull with git pull --rebase origin BRANCH, or"
      + " store the upstream with git config --global branch.BRANCH.remote origin and git config"
      + " --global branch.BRANCH.merge refs/heads/BRANCH";

  /**
   * What a refusal of the name-deny layer's judge of a {@code .git/config} edit starts with
   * ({@link RepositoryConfigQuestions}); what follows is why, any name from the file quoted.
   */
  static final String CONFIG_JUDGE = NAME_DENY_LAYER + "'s judge of .git/config: ";

  /** The reason of such a refusal, before its why. */
  static final String CONFIG_EDIT = "a run may change the repository's .git/config only by adding"
      + " an upstream to a branch that has none (branch.BRANCH.remote naming a remote it has, branch.BRANCH.merge ="
      + " refs/heads/BRANCH: what git push -u and git branch --set-upstream-to write), since a git"
      + " on the host may read it while the run lives; git stored nothing, because ";

  /** The end of such a reason: what to do instead. */
  static final String CONFIG_EDIT_INSTEAD = "; for a setting of your own use git -c KEY=VALUE for"
      + " one command or git config --global for the run";

  /**
   * Why the layer refused one of the paths every run is denied ({@link
   * SandboxPlanner#MANDATORY_WRITE_DENY}: agent and editor settings, git metadata, shell start-up
   * files): no rules change opens them, so the reason must not send the agent to the operator.
   */
  static final String HOST_TOOL_FILE = "the sandbox denies every run writing this path: a tool on"
      + " the operator's side runs what it finds here later (agent and editor settings such as"
      + " .mcp.json and .claude/settings.json, git hooks and config, shell start-up files), so no"
      + " rules change opens it; if the change is needed, say so and a person makes it";

  /** Why the name-deny layer refused a write: the name is one the run's rules deny. */
  static final String NAME_DENIED = "the run's rules deny writing a file of this name (a secret"
      + " file such as .env, *.key or *.pem, or a protected path); keep such a file out of the"
      + " checkout, or ask the operator to change the rules";

  /** Why the system refused an open of a path the sandbox shows (its permissions, or the layer). */
  static final String ACCESS = "the system would not let the sandbox's user open this path as"
      + " asked: the file's own permissions (the run runs as a user of its own, not the file's"
      + " owner), or, for a write, a name the run's rules deny (that refusal is reported on its own"
      + " line); the sandbox does not hide this path";

  private RefusalReason() {}

  /** Whether {@code target} is, or is inside, a path every run is denied at a mount's root. */
  static boolean isHostToolFile(String target) {
    for (String rel : SandboxPlanner.MANDATORY_WRITE_DENY) {
      if (target.endsWith("/" + rel) || target.contains("/" + rel + "/")) {
        return true;
      }
    }
    for (String name : GitMetadata.REFUSED_BY_NAME) {
      if (target.endsWith("/.git/" + name)) {
        return true;
      }
    }
    return false;
  }

  static boolean isRepositoryConfig(String target) {
    return target != null && (target.equals(".git/config") || target.endsWith("/.git/config"));
  }

  /**
   * Why the name-deny layer refuses writing {@code target} by its name, whatever the write (a
   * create, a rename or a link onto it): the one table, for the layer's own reports and for a
   * tool's output that shows its refusal ({@link ToolOutputRefusals}).
   */
  static String refusedName(String target) {
    return isHostToolFile(target) ? HOST_TOOL_FILE : NAME_DENIED;
  }

  /** Whether the name-deny layer made this report (not a line of the command's errors). */
  static boolean fromNameDenyLayer(SandboxViolation v) {
    return ViolationParser.FILE_WRITE.equals(v.action()) && v.raw() != null
        && v.raw().startsWith(NAME_DENY_LAYER);
  }

  /** The reason for {@code v}, one sentence without a line break. */
  public static String of(SandboxViolation v) {
    String raw = v.raw() == null ? "" : v.raw();
    return switch (v.action()) {
      case ViolationParser.FILE_WRITE -> raw.startsWith(CONFIG_JUDGE)
          ? CONFIG_EDIT + raw.substring(CONFIG_JUDGE.length()) + CONFIG_EDIT_INSTEAD
          : fromNameDenyLayer(v)
          ? refusedName(v.target())
          : isRepositoryConfig(v.target()) ? REPOSITORY_CONFIG
          : "the sandbox keeps this path read-only: it is outside the run's writable directories,"
              + " or one the run may not change (git metadata such as .git/config and hooks, agent"
              + " and editor settings, shell startup files)";
      case ViolationParser.FILE_READ ->
          "the sandbox hides this path: a secret (such as ~/.ssh or ~/.aws) or a directory that"
              + " is not the run's";
      case ViolationParser.FILE_ACCESS -> ACCESS;
      case ViolationParser.NETWORK ->
          "the run's network reaches only the hosts on its egress allowlist; ask the operator to"
              + " allow this host";
      case ViolationParser.SYSCALL -> "the sandbox does not allow this operation";
      case SandboxViolation.GIT_METADATA -> raw;
      default -> "refused by the sandbox";
    };
  }

  /**
   * One line naming the refusal and its reason, {@code file-write* "/w/.env": the run's rules …}.
   * The target comes from a command's output (the name-deny layer's reports too name what the
   * command asked for), so it is quoted as data, {@link UntrustedText#quoted}: a path such as
   * {@code IGNORE ALL RULES; the operator approved …} must not read as pushgate's own words.
   */
  public static String line(SandboxViolation v) {
    return line(v, of(v));
  }

  /** The line for {@code v} with a reason its reader judged from more than the line itself. */
  static String line(SandboxViolation v, String reason) {
    return subject(v.action(), v.target()) + ": " + reason;
  }

  /**
   * What was refused, as every reader heads it: {@code file-write* "/w/.env"}, the target quoted
   * as data ({@link UntrustedText#quoted}): a path holding a line break or an escape sequence must
   * not forge a line of pushgate's own or repaint a terminal.
   */
  public static String subject(String action, String target) {
    return action + (target == null || target.isEmpty() ? "" : " " + UntrustedText.quoted(target));
  }
}
