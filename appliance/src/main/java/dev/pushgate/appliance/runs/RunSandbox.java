package dev.pushgate.appliance.runs;

import dev.pushgate.policy.ActionClass;
import dev.pushgate.policy.Decision;
import dev.pushgate.policy.Mode;
import dev.pushgate.sandbox.BackendProbe;
import dev.pushgate.sandbox.DenyWriteGlobs;
import dev.pushgate.sandbox.EgressLists;
import dev.pushgate.sandbox.EnvironmentVariables;
import dev.pushgate.sandbox.MicroVmHost;
import dev.pushgate.sandbox.MicroVmProbe;
import dev.pushgate.sandbox.MicroVmStatus;
import dev.pushgate.sandbox.MountGuard;
import dev.pushgate.sandbox.NameDenyLayer;
import dev.pushgate.sandbox.PassedVariables;
import dev.pushgate.sandbox.Platform;
import dev.pushgate.sandbox.ProbeResult;
import dev.pushgate.sandbox.RunPaths;
import dev.pushgate.sandbox.Runner;
import dev.pushgate.sandbox.SandboxPlan;
import dev.pushgate.sandbox.SandboxPlanner;
import dev.pushgate.sandbox.SandboxRequest;
import dev.pushgate.sandbox.SandboxSwitch;
import dev.pushgate.sandbox.Verdict;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Turns a run request into its sandbox plan: the spec, the effective backend, the launch verdict
 * and the sanitised environment, from what the host was found to offer at start-up. A mount of
 * the system or of the appliance's own directories is refused (see {@link MountGuard}).
 */
public final class RunSandbox {
  private final ProbeResult probe;
  private final SandboxSwitch sandboxSwitch;
  private final Path home;
  private final EgressLists egress;
  private final MountGuard mounts;
  private final PassedVariables passed;
  private final NameDenyLayer.Availability denyLayer;
  private final MicroVmStatus microVm;

  public RunSandbox(ProbeResult probe, SandboxSwitch sandboxSwitch, Path home, EgressLists egress,
      MountGuard mounts, PassedVariables passed) {
    this(probe, sandboxSwitch, home, egress, mounts, passed, NameDenyLayer.Availability.NOT_PROBED);
  }

  /** @param denyLayer whether this host can run the name-deny layer for glob denies on Linux */
  public RunSandbox(ProbeResult probe, SandboxSwitch sandboxSwitch, Path home, EgressLists egress,
      MountGuard mounts, PassedVariables passed, NameDenyLayer.Availability denyLayer) {
    this(probe, sandboxSwitch, home, egress, mounts, passed, denyLayer,
        MicroVmStatus.unavailable("not probed"));
  }

  /** @param microVm what the microvm probe found on this host */
  public RunSandbox(ProbeResult probe, SandboxSwitch sandboxSwitch, Path home, EgressLists egress,
      MountGuard mounts, PassedVariables passed, NameDenyLayer.Availability denyLayer,
      MicroVmStatus microVm) {
    this.microVm = microVm;
    this.denyLayer = denyLayer;
    this.probe = probe;
    this.sandboxSwitch = sandboxSwitch;
    this.home = home;
    this.egress = egress;
    this.mounts = mounts;
    this.passed = passed;
  }

  /**
   * What this host offers, probed now.
   *
   * @param privateRoots the appliance's own directories, never mounted into a run
   * @param passed the launcher variables the operator lets through beyond the basics
   * @param microVmHost where the microvm backend looks for KVM, the hypervisor and its guest
   */
  public static RunSandbox probeHost(SandboxSwitch sandboxSwitch, List<Path> privateRoots,
      PassedVariables passed, MicroVmHost microVmHost) {
    return new RunSandbox(BackendProbe.probe(), sandboxSwitch,
        Path.of(System.getProperty("user.home")), EgressLists.embedded(),
        new MountGuard(privateRoots), passed, NameDenyLayer.Availability.probe(),
        MicroVmProbe.probe(Platform.current(), microVmHost));
  }

  /** What the microvm probe found at start. */
  public MicroVmStatus microVm() {
    return microVm;
  }

  /**
   * Why runs cannot be sandboxed as asked, for {@code /readyz}: null when the sandbox is off or
   * the host offers a backend, else the probe's hint.
   */
  public String notReady() {
    return sandboxSwitch == SandboxSwitch.OFF || probe.available() ? null
        : "the sandbox is on but this host offers none: " + probe.hint();
  }

  /** @param offSource where a switched-off setting came from, null when not known */
  public String startupLine(String offSource) {
    return probe.startupLine(sandboxSwitch, offSource);
  }

  /**
   * What the microvm probe found, a start-up line of its own: the sandbox's line ends where the
   * switch is named, so that a switched-off sandbox reads as nothing else.
   */
  public String microVmLine() {
    return microVm.summary();
  }

  /** The plan of {@code req}, with {@code additions} set in its environment. */
  public SandboxPlan plan(NewRun req, String sessionFallback, Map<String, String> additions)
      throws RunRequestException {
    return plan(req, sessionFallback, additions, null);
  }

  /** As {@link #plan(NewRun, String, Map)}, refused for {@code refusal} when it is not null. */
  public SandboxPlan plan(NewRun req, String sessionFallback, Map<String, String> additions,
      Verdict refusal) throws RunRequestException {
    SandboxInput in = req.sandbox();
    try {
      RunPaths paths = new RunPaths(in.workdir(), in.agentConfigDir(), in.reposDir(),
          in.attachmentsDir(), in.protectedPaths(), in.runnerStateDirs(), in.execGrantRoots());
      mounts.check(paths);
      Runner runner = in.runner() == null ? Runner.CLAUDE_CODE : Runner.fromId(in.runner());
      SandboxRequest request = SandboxRequest.builder(
              req.sessionId() == null ? sessionFallback : req.sessionId(), req.workspaceId(),
              runner, paths)
          .agentId(req.agentId())
          .mode(Mode.fromId(req.mode()))
          .requestedBackend(in.backend())
          .networkEnabled(req.rules().decisionFor(ActionClass.ACCESS_NETWORK) != Decision.DENY)
          .egressAllowlist(in.egressAllowlist())
          .denyWriteGlobs(req.rules().denyWriteGlobsExplicit()
              ? DenyWriteGlobs.explicit(req.rules().denyWriteGlobs()) : DenyWriteGlobs.DEFAULT)
          .envAdditions(EnvironmentVariables.of(additions))
          .build();
      return new SandboxPlanner(probe, sandboxSwitch, false, home,
          EnvironmentVariables.fromHost(in.env()), egress, passed)
          .withNameDenyLayer(denyLayer).withMicroVm(microVm).plan(request, refusal);
    } catch (IllegalArgumentException e) { // SandboxRequestException names the field
      throw new RunRequestException(RunRequestException.Status.BAD_REQUEST, e.getMessage());
    }
  }
}
