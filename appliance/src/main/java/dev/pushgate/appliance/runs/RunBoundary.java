package dev.pushgate.appliance.runs;

import dev.pushgate.policy.Boundary;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * What is judged at pushgate's boundary for a run, whatever command the agent runs; the Claude
 * Code hook lets through what is judged there ({@link dev.pushgate.policy.CommandPolicy}). Only
 * what is really in force is named, so that an answer never points to a protection that is not
 * applied.
 *
 * <ul>
 *   <li>{@link Boundary#GIT_PUSH}: every run's git config sends the git host's push URLs to the
 *       gateway, and the run holds no credential GitHub accepts for a push. That holds only inside
 *       an OS sandbox: a run under backend {@code none} keeps the host account's home, so its SSH
 *       keys and credential stores, and {@code GIT_SSH_COMMAND=ssh git push ssh://git@GitHub.com/…}
 *       gets past the run's SSH guard to push unjudged.
 *   <li>{@link Boundary#GITHUB_API}: the run's proxy judges every GitHub API request. Behind
 *       {@link #GITHUB_API_BOUNDARY_IN_FORCE}, and also only inside an OS sandbox (without one the
 *       proxy is only the run's {@code HTTPS_PROXY}, which a program may ignore).
 * </ul>
 */
public final class RunBoundary {
  /** Whether the GitHub API boundary judges sandboxed runs' API calls ({@link Runs#GITHUB_API_BOUNDARY}). */
  public static final boolean GITHUB_API_BOUNDARY_IN_FORCE = Runs.GITHUB_API_BOUNDARY;

  private RunBoundary() {}

  /** What is judged at the boundary for a run under {@code backend} (its effective backend id). */
  public static Set<Boundary> forBackend(String backend) {
    return forBackend(backend, GITHUB_API_BOUNDARY_IN_FORCE);
  }

  static Set<Boundary> forBackend(String backend, boolean apiBoundaryInForce) {
    if (backend == null || backend.equals("none")) {
      return Set.of();
    }
    EnumSet<Boundary> inForce = EnumSet.of(Boundary.GIT_PUSH);
    if (apiBoundaryInForce) {
      inForce.add(Boundary.GITHUB_API);
    }
    return Collections.unmodifiableSet(inForce);
  }
}
