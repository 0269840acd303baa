package dev.pushgate.gitconfig;

import java.util.ArrayList;
import java.util.List;

/**
 * git as pushgate itself runs it on a worktree: an agent may have written that worktree's
 * metadata, so nothing git would take from it or from the host's config runs a program. Hooks and
 * fsmonitor are off whatever any config says, and the system config is not read; the global
 * config is the run's own (pushgate writes it, without includes) or none. Inside a launch that is
 * the launch's fresh writable config, which includes only the run's own (written by the sandbox's
 * start script before any command of the agent runs).
 */
public final class OwnGit {
  /** Set in git's environment. */
  public static final String NO_SYSTEM_CONFIG = "GIT_CONFIG_NOSYSTEM";

  private OwnGit() {}

  /** {@code git} with hooks and fsmonitor off, then {@code args}. */
  public static List<String> argv(String... args) {
    List<String> cmd = new ArrayList<>(List.of("git", "-c", "core.hooksPath=/dev/null",
        "-c", "core.fsmonitor=false"));
    cmd.addAll(List.of(args));
    return cmd;
  }

  /** The same through {@code env}, for a launch whose environment is the run's own. */
  public static List<String> inRunEnvironment(String... args) {
    List<String> cmd = new ArrayList<>(List.of("env", NO_SYSTEM_CONFIG + "=1"));
    cmd.addAll(argv(args));
    return cmd;
  }
}
