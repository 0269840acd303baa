package dev.pushgate.gateway;

import dev.pushgate.policy.Decision;
import dev.pushgate.policy.Judgement;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Joins a command's content findings to its judgement, as {@link WorkflowRule} joins a workflow
 * change: a deny finding refuses whatever the ref rule said, an ask finding holds an allowed
 * update for an approver (one question naming both rules), and the audit names every finding
 * with its commit.
 *
 * @param judgement what git shows and approvers read: the strictest finding first
 * @param audited every finding, each with the commit that brought it
 */
record ContentVerdict(Judgement judgement, String audited) {
  /**
   * The findings of a write with no ref rule of its own to join (an API write, a ref move's
   * commits), in a push's words: empty when there are none.
   */
  static java.util.Optional<Judgement> alone(List<ContentFinding> findings) {
    return findings.isEmpty() ? java.util.Optional.empty() : java.util.Optional.of(
        judge(new Judgement(Decision.ALLOW, "content", ""), findings).judgement());
  }

  static ContentVerdict judge(Judgement ref, List<ContentFinding> findings) {
    Decision worst = findings.stream().map(ContentFinding::decision)
        .reduce(Decision.ALLOW, Decision::strictest);
    ContentFinding first = findings.stream().filter(f -> f.decision() == worst).findFirst()
        .orElseThrow();
    int more = findings.size() - 1;
    String text = first.text() + (more == 0 ? "" : " and " + more + " more finding"
        + (more == 1 ? "" : "s"));
    String rule = "content \"" + first.rule().name() + "\" -> " + worst.id();
    Judgement j = switch (worst) {
      case DENY -> new Judgement(Decision.DENY, rule, text);
      case ASK -> ref.decision() == Decision.ASK
          ? new Judgement(Decision.ASK, ref.rule() + " and " + rule, ref.reason() + "; " + text)
          : new Judgement(Decision.ASK, rule, text);
      case ALLOW -> ref;
    };
    String audited = findings.stream().map(ContentFinding::audited)
        .collect(Collectors.joining("; "));
    return new ContentVerdict(j, j.decision() == Decision.ASK && ref.decision() == Decision.ASK
        ? ref.reason() + "; " + audited : audited);
  }
}
