package dev.pushgate.appliance.runs;

import dev.pushgate.sandbox.SandboxPlan;

/**
 * A run whose sandbox plan may not launch. Nothing was issued for it (no token, no credential, no
 * ledger row): the plan says why and what the ways out are.
 */
public final class RunNotLaunched extends Exception {
  private static final long serialVersionUID = 1L;

  private final transient SandboxPlan plan;

  public RunNotLaunched(SandboxPlan plan) {
    super("not launched: " + plan.verdict().reason());
    this.plan = plan;
  }

  public SandboxPlan plan() {
    return plan;
  }
}
