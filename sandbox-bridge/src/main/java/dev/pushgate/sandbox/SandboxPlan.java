package dev.pushgate.sandbox;

/**
 * Everything decided about one run's sandbox: the control API's {@code sandbox} field. {@code env}
 * carries the run's token; its {@code toString} names variables only.
 *
 * @param spec the spec handed to the launcher
 * @param requestedBackend what the run asked for, or null
 * @param effectiveBackend what the run runs under; {@code none} whenever it is not wrapped,
 *     including when it is refused
 * @param backendReason how the effective backend was chosen
 * @param verdict whether it may launch
 * @param probeNote the probe's note (available) or hint (unavailable)
 * @param env the environment the process starts with
 * @param enforcement which layers hold
 * @param filesystem file-system rules for the launcher
 * @param egress the egress policy for the run's proxies
 */
public record SandboxPlan(
    SandboxSpec spec,
    SandboxBackend requestedBackend,
    SandboxBackend effectiveBackend,
    String backendReason,
    Verdict verdict,
    String probeNote,
    EnvironmentVariables env,
    Enforcement enforcement,
    FilesystemPolicy filesystem,
    EgressPolicy egress) {

  public SandboxPlan {
    if (spec == null || effectiveBackend == null || backendReason == null || verdict == null
        || probeNote == null || env == null || enforcement == null || filesystem == null
        || egress == null) {
      throw new IllegalArgumentException("a sandbox plan is incomplete");
    }
    if (!verdict.launches() && effectiveBackend != SandboxBackend.NONE) {
      throw new IllegalArgumentException("a refused run runs under no backend");
    }
    if (enforcement.osSandbox() != effectiveBackend.wraps()) {
      throw new IllegalArgumentException("the enforcement summary disagrees with the backend");
    }
  }
}
