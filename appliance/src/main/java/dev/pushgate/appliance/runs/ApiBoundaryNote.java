package dev.pushgate.appliance.runs;

import dev.pushgate.sandbox.Enforcement;
import dev.pushgate.sandbox.SandboxBackend;
import dev.pushgate.sandbox.SandboxPlan;

/** What a run's plan says of its GitHub API boundary: where the API goes, and how firmly. */
final class ApiBoundaryNote {
  private ApiBoundaryNote() {}

  /** The plan whose network note says where the GitHub API goes, and how firmly. */
  static SandboxPlan added(SandboxPlan plan) {
    Enforcement e = plan.enforcement();
    String note = e.networkNote() + (plan.effectiveBackend() == SandboxBackend.NONE
        ? "; GitHub API calls go through pushgate's API boundary only for programs that honour"
            + " HTTPS_PROXY (cooperative: no OS sandbox holds the rest)"
        : "; GitHub API calls go through pushgate's API boundary, which holds the real token");
    Enforcement amended = new Enforcement(e.worktree(),
        e.readOnlyToken(), e.pushGateway(), e.commandPolicy(), e.osSandbox(), e.osSandboxNote(),
        e.networkAllowlist(), note, e.environmentSanitised(), e.environmentNote(),
        e.writeDenyGlobs(), e.weakenings());
    return new SandboxPlan(plan.spec(), plan.requestedBackend(), plan.effectiveBackend(),
        plan.backendReason(), plan.verdict(), plan.probeNote(), plan.env(), amended,
        plan.filesystem(), plan.egress());
  }
}
