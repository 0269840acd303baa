package dev.pushgate.sandbox;

import java.util.List;

/**
 * Which layers hold for a run on this host, said plainly so that no run reads as wrapped while it
 * runs on the host. The first four are the layers outside this module that hold on every host.
 *
 * @param worktree the run works in its own worktree, never the registered checkout
 * @param readOnlyToken the run's GitHub token can read but not push
 * @param pushGateway pushes go through the gateway and its push rule
 * @param commandPolicy the mode's command policy judges shell commands
 * @param osSandbox whether an OS sandbox wraps the process
 * @param osSandboxNote which one and what it is, or why there is none
 * @param networkAllowlist whether the egress allowlist is enforced (only under an OS sandbox)
 * @param networkNote what the network layer does for this run
 * @param environmentSanitised whether injection variables were removed from the environment
 * @param environmentNote how the environment was built
 * @param writeDenyGlobs file-name write denies actually enforced; empty when none are
 * @param weakenings explicit choices that weaken confinement for this run
 */
public record Enforcement(
    boolean worktree,
    boolean readOnlyToken,
    boolean pushGateway,
    boolean commandPolicy,
    boolean osSandbox,
    String osSandboxNote,
    boolean networkAllowlist,
    String networkNote,
    boolean environmentSanitised,
    String environmentNote,
    List<String> writeDenyGlobs,
    List<String> weakenings) {

  public Enforcement {
    writeDenyGlobs = writeDenyGlobs == null ? List.of() : List.copyOf(writeDenyGlobs);
    weakenings = weakenings == null ? List.of() : List.copyOf(weakenings);
    if (osSandboxNote == null || networkNote == null || environmentNote == null) {
      throw new IllegalArgumentException("an enforcement summary needs every note");
    }
    if (networkAllowlist && !osSandbox) {
      throw new IllegalArgumentException("the egress allowlist is enforced only under a sandbox");
    }
  }
}
