package dev.pushgate.gitconfig;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Which settings of a repository's own config are known not to make git run a program or read
 * another repository: what {@code git init}, {@code git clone}, branch tracking and identity
 * write. Everything else ({@code core.fsmonitor}, {@code core.hooksPath}, filters, pagers,
 * aliases, includes, submodules, …) is reported, so that a config written by someone else is
 * looked at before git on the host reads it. An allowlist: git has too many settings that run
 * something to list them.
 */
public final class InertRepositoryConfig {
  private static final Set<String> SETTINGS = Set.of(
      "core.repositoryformatversion", "core.filemode", "core.bare", "core.logallrefupdates",
      "core.ignorecase", "core.precomposeunicode", "core.symlinks", "core.autocrlf", "core.eol",
      "core.safecrlf", "core.quotepath", "extensions.objectformat",
      "user.name", "user.email", "init.defaultbranch",
      "pull.rebase", "pull.ff", "push.default", "push.autosetupremote", "fetch.prune");

  /** {@code remote.<name>.<key>} and {@code branch.<name>.<key>} keys. */
  private static final Pattern REMOTE =
      Pattern.compile("remote\\..+\\.(url|pushurl|fetch|tagopt|prune|mirror)");
  private static final Pattern BRANCH =
      Pattern.compile("branch\\..+\\.(remote|pushremote|merge|rebase)");

  private InertRepositoryConfig() {}

  /**
   * The settings of {@code text} (a config file's bytes as ISO-8859-1) that are not known to be
   * inert, each once, in file order; or {@code bad config line N} when git could not read it.
   */
  public static List<String> unknownSettings(String text) {
    List<ConfigEntry> entries;
    try {
      entries = ConfigScanner.scan(text);
    } catch (ConfigSyntaxException e) {
      return List.of(e.getMessage());
    }
    Set<String> out = new LinkedHashSet<>();
    for (ConfigEntry e : entries) {
      if (!isInert(e.variable())) {
        out.add(e.variable());
      }
    }
    return new ArrayList<>(out);
  }

  /** Whether a setting, named as {@code git config --list} prints it, is known to be inert. */
  public static boolean isInert(String variable) {
    return SETTINGS.contains(variable) || REMOTE.matcher(variable).matches()
        || BRANCH.matcher(variable).matches();
  }
}
