package dev.pushgate.gateway;

/** Why the gateway refused a ref update or a push. Kept in the audit log. */
public enum RefusalCode {
  /** A push rule said deny. */
  RULE_DENIED,
  /** The rule said ask first and nobody could answer. */
  NO_APPROVER,
  /** An approver said no. */
  APPROVAL_DENIED,
  /** Nobody answered in time. */
  APPROVAL_TIMEOUT,
  /** The question was withdrawn unanswered: the run ended or the appliance is stopping. */
  APPROVAL_CANCELLED,
  /** What the rule says to ask about is too long to put to a person whole; nobody was asked. */
  QUESTION_TOO_LONG,
  /** The repository is neither the run's own nor attached to its workspace. */
  REPO_NOT_ATTACHED,
  /** An atomic push in which another ref was refused. */
  ATOMIC_ABORTED,
  /** git's own checks refused the command (bad ref name, stale old id, …). */
  INVALID_COMMAND,
  /** Upstream refused the update or could not be reached. */
  UPSTREAM_REJECTED,
  /** The run's other pushes took its share of the judge, and this one waited too long: retry. */
  JUDGE_BUSY,
  /**
   * The gateway was working on its limit of git requests at once (or its repository's wait was
   * full): shed before anything was judged or done; retry.
   */
  GATEWAY_BUSY,
  /**
   * Nobody waited for the judgement any more (the git client closed its connection, or the
   * appliance is stopping): it was abandoned part way, and nothing was pushed. Also a push whose
   * pack never arrived whole (cut short, or its client stopped sending): never judged.
   */
  ABANDONED,
  /** Something failed inside the gateway; the push is refused, never let through. */
  INTERNAL
}
