package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.policy.Decision;
import dev.pushgate.policy.Judgement;
import dev.pushgate.policy.UpdateKind;
import dev.pushgate.types.RepoSlug;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A command naming one of upstream's symbolic refs is judged as what upstream changes. */
class UpstreamSymrefsTest {
  private static final RepoSlug REPO = RepoSlug.parse("acme/widget");
  /** Denies main and the release tags; allows everything else. */
  private static final Verdict.PushJudge RULES = (ref, kind) ->
      ref.equals("refs/heads/main") || ref.startsWith("refs/tags/v")
          ? new Judgement(Decision.DENY, "push", "push to " + ref + " is denied")
          : new Judgement(Decision.ALLOW, "push", "allowed");

  private static Judgement judge(Map<String, String> symrefs, String ref, UpdateKind kind) {
    return UpstreamSymrefs.listed(REPO, symrefs).judging(RULES).judge(ref, kind);
  }

  @Test
  void anUpdateOfASymrefIsJudgedAsAnUpdateOfItsTarget() {
    Judgement j = judge(Map.of("refs/heads/alias", "refs/heads/main"), "refs/heads/alias",
        UpdateKind.UPDATE);

    assertThat(j.decision()).isEqualTo(Decision.DENY);
    assertThat(j.reason()).isEqualTo("refs/heads/alias is a symbolic ref upstream to"
        + " refs/heads/main, which this push would move: push to refs/heads/main is denied");
  }

  @Test
  void aSymrefToAnAllowedRefIsAllowedAndAnOrdinaryRefIsJudgedByItsName() {
    Map<String, String> symrefs = Map.of("refs/heads/alias", "refs/heads/dev");

    assertThat(judge(symrefs, "refs/heads/alias", UpdateKind.FORCE).decision())
        .isEqualTo(Decision.ALLOW);
    assertThat(judge(symrefs, "refs/heads/main", UpdateKind.UPDATE).reason())
        .isEqualTo("push to refs/heads/main is denied");
    assertThat(judge(symrefs, "refs/heads/feature", UpdateKind.CREATE).decision())
        .isEqualTo(Decision.ALLOW);
  }

  @Test
  void aSymrefToATagOrOutsideTheBranchesIsJudgedAsItsTarget() {
    assertThat(judge(Map.of("refs/heads/latest", "refs/tags/v1"), "refs/heads/latest",
        UpdateKind.FORCE).decision()).isEqualTo(Decision.DENY);
  }

  @Test
  void aChainIsFollowedToItsEndAndALoopIsRefused() {
    Map<String, String> chain = Map.of("refs/heads/a", "refs/heads/b",
        "refs/heads/b", "refs/heads/main");
    assertThat(judge(chain, "refs/heads/a", UpdateKind.UPDATE).decision())
        .isEqualTo(Decision.DENY);

    Judgement loop = judge(Map.of("refs/heads/a", "refs/heads/b", "refs/heads/b",
        "refs/heads/a"), "refs/heads/a", UpdateKind.UPDATE);
    assertThat(loop.decision()).isEqualTo(Decision.DENY);
    assertThat(loop.reason()).isEqualTo("refs/heads/a is a symbolic ref upstream whose chain is"
        + " longer than 5 or loops; nothing was pushed to it");
  }

  @Test
  void deletingASymrefIsRefusedWhateverItsTarget() {
    Judgement j = judge(Map.of("refs/heads/alias", "refs/heads/dev"), "refs/heads/alias",
        UpdateKind.DELETE);

    assertThat(j.decision()).isEqualTo(Decision.DENY);
    assertThat(j.rule()).isEqualTo(UpstreamSymrefs.RULE);
    assertThat(j.reason()).isEqualTo("deleting refs/heads/alias is denied: refs/heads/alias is a"
        + " symbolic ref upstream to refs/heads/dev, and upstream would delete refs/heads/dev"
        + " with it; a repository admin removes the alias");
  }

  @Test
  void whenUpstreamsListCannotBeReadEveryCommandIsRefused() {
    Judgement j = UpstreamSymrefs.unknown(REPO).judging(RULES)
        .judge("refs/heads/feature", UpdateKind.CREATE);

    assertThat(j.decision()).isEqualTo(Decision.DENY);
    assertThat(j.reason()).isEqualTo("upstream acme/widget's ref list cannot be read right now,"
        + " so the gateway cannot tell whether refs/heads/feature is a symbolic ref there;"
        + " nothing was pushed, try again");
  }

  @Test
  void aRefOutsideTheBranchesAndTagsIsRefusedAsTheListDoesNotCoverIt() {
    Judgement j = judge(Map.of(), "refs/notes/commits", UpdateKind.CREATE);

    assertThat(j.decision()).isEqualTo(Decision.DENY);
    assertThat(j.reason()).startsWith("the gateway lists upstream's branches and tags only");
  }

  @Test
  void aSpellingThatDiffersOnlyInCaseIsJudgedAsTheSymrefToo() {
    Map<String, String> symrefs = Map.of("refs/heads/alias", "refs/heads/main");

    assertThat(judge(symrefs, "refs/heads/ALIAS", UpdateKind.UPDATE).reason())
        .isEqualTo("refs/heads/ALIAS is a symbolic ref upstream to refs/heads/main, which this"
            + " push would move: push to refs/heads/main is denied");
  }
}
