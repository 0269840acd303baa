package dev.pushgate.appliance.runs;

import dev.pushgate.appliance.store.Ledger;
import dev.pushgate.gateway.RunContext;
import dev.pushgate.policy.WorkspaceRules;
import dev.pushgate.sandbox.FilesystemPolicy;

/** A run this appliance holds: its row, what it is judged by, and its tokens. */
final class LiveRun {
  /** Replaced once, when the run's sandbox backend is known; read by other threads. */
  volatile Ledger.RunRow row;
  /**
   * Replaced with the row: the boundaries in force for the run follow its backend, and the
   * gateway asks where the mode asks only where they are ({@link RunContext#judgePush}).
   */
  volatile RunContext context;
  final WorkspaceRules rules;
  final RunCredentials.Held tokens;
  /** The sandbox's file-system rules, once planned; null for a run without a sandbox. */
  volatile FilesystemPolicy filesystem;

  LiveRun(Ledger.RunRow row, RunContext context, WorkspaceRules rules,
      RunCredentials.Held tokens) {
    this.row = row;
    this.context = context;
    this.rules = rules;
    this.tokens = tokens;
  }
}
