package dev.pushgate.gateway;

import dev.pushgate.policy.Decision;
import dev.pushgate.policy.Judgement;
import java.util.Iterator;
import java.util.SortedSet;

/**
 * The {@code push-workflows} rule applied to a ref update whose new commits change CI workflows:
 * a workflow runs upstream with the repository's own token, which can do what the push rules
 * refuse the agent. Its judgement joins the ref's own, so that a refusal, a question and the
 * audit name both rules and the workflow files.
 */
final class WorkflowRule {
  /** How many workflow files a one-line message names before it counts the rest. */
  static final int NAMED = 3;

  private WorkflowRule() {}

  /**
   * The judgement of an update the ref rule allowed or asked about, given that it changes
   * {@code files} and the run's {@code push-workflows} decision is {@code workflows}.
   */
  static Judgement judge(Judgement ref, Decision workflows, SortedSet<String> files) {
    String changes = "it changes CI workflows (" + names(files) + ")";
    return switch (workflows) {
      case DENY -> new Judgement(Decision.DENY, "push-workflows -> deny",
          "pushing a change to CI workflows is denied (push-workflows): " + names(files));
      case ASK -> ref.decision() == Decision.ASK
          ? new Judgement(Decision.ASK, ref.rule() + " and push-workflows -> ask",
              ref.reason() + "; " + changes)
          : new Judgement(Decision.ASK, "push-workflows -> ask",
              "pushing a change to CI workflows needs approval (push-workflows): " + names(files));
      case ALLOW -> new Judgement(ref.decision(), ref.rule() + " and push-workflows -> allow",
          ref.reason() + "; " + changes);
    };
  }

  /** {@code a, b, c and 2 more}: the first {@link #NAMED} in path order, then a count. */
  static String names(SortedSet<String> files) {
    StringBuilder s = new StringBuilder();
    Iterator<String> it = files.iterator();
    for (int n = 0; n < NAMED && it.hasNext(); n++) {
      s.append(n == 0 ? "" : ", ").append(it.next());
    }
    if (files.size() > NAMED) {
      s.append(" and ").append(files.size() - NAMED).append(" more");
    }
    return s.toString();
  }
}
