package dev.pushgate.appliance.runs;

import dev.pushgate.policy.Boundary;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * What is judged at pushgate's boundary for a run, whatever command the agent runs; the Claude
 * Code hook lets through what is judged there ({@link dev.pushgate.policy.CommandPolicy}), and
 * the boundary applies the run's mode, asks included ({@code RunContext#judgePush}, {@code
 * GitHubApiJudge}), so that each action is asked about once, at the door that sees it.
 *
 * <ul>
 *   <li>{@link Boundary#GIT_PUSH}: every run's git config sends the git host's URLs to the
 *       gateway, and the run holds no credential GitHub accepts for a push, so every push the
 *       run makes with what pushgate gave it crosses the gateway, whatever command makes it
 *       ({@code sh push.sh}, a git alias), with or without an OS sandbox.
 *   <li>{@link Boundary#GITHUB_API}: every run's GitHub API calls carry a sentinel GitHub
 *       refuses, which only the run's API boundary swaps for a token. Behind {@link
 *       #GITHUB_API_BOUNDARY_IN_FORCE}.
 * </ul>
 *
 * <p>What neither sees: a run without an OS sandbox keeps the host account's home, so a push or
 * call made with the host's own credentials (its SSH keys, gh's stored token) goes around both,
 * judged by nobody, whatever the hook would have said of the line (docs/security.md).
 */
public final class RunBoundary {
  /** Whether the GitHub API boundary judges runs' API calls ({@link Runs#GITHUB_API_BOUNDARY}). */
  public static final boolean GITHUB_API_BOUNDARY_IN_FORCE = Runs.GITHUB_API_BOUNDARY;

  private RunBoundary() {}

  /** What is judged at the boundary for every run of this appliance. */
  public static Set<Boundary> inForce() {
    return inForce(GITHUB_API_BOUNDARY_IN_FORCE);
  }

  static Set<Boundary> inForce(boolean apiBoundaryInForce) {
    EnumSet<Boundary> inForce = EnumSet.of(Boundary.GIT_PUSH);
    if (apiBoundaryInForce) {
      inForce.add(Boundary.GITHUB_API);
    }
    return Collections.unmodifiableSet(inForce);
  }
}
