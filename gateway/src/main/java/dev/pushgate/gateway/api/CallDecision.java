package dev.pushgate.gateway.api;

/**
 * What a step of the boundary decides about a call ({@link CallStep}). A call ends in exactly one
 * of {@link Refused} (answered before any judgement: not a decision of the rules, not audited),
 * {@link Denied} (audited as not sent, then answered in GitHub's error shape) or {@link Allowed}
 * (made ready, audited as sent, sent upstream, its answer copied back). A step that leaves the
 * call to the next one returns {@link #NEXT}.
 */
sealed interface CallDecision {
  /** Not decided here: the next step decides. */
  CallDecision NEXT = Next.NEXT;

  /** The one undecided value. */
  enum Next implements CallDecision {
    NEXT
  }

  /** Refused before it was judged: a request pushgate will not read or cannot send as it is. */
  record Refused(int status, String message) implements CallDecision {}

  /**
   * Refused by the rules, by an approver, or because the boundary cannot carry it out (no token,
   * a header it cannot send); {@code audited} is what the record says was decided ({@code
   * denied}, or {@code asked} when a person answered).
   */
  record Denied(String audited, String reason, int status) implements CallDecision {
    static Denied byRule(String audited, String reason) {
      return new Denied(audited, reason, 403);
    }
  }

  /** Allowed by the rules ({@code allowed}) or by an approver ({@code asked}). */
  record Allowed(String audited, String reason) implements CallDecision {}
}
