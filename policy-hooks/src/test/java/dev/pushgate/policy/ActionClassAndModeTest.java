package dev.pushgate.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ActionClassAndModeTest {
  @Test
  void actionClassesHaveStableIdsAndDisplayNames() {
    assertThat(Arrays.stream(ActionClass.values()).map(a -> a.id() + "=" + a.displayName()))
        .containsExactly(
            "push=Push to a remote",
            "commit=Create a commit",
            "open-pull-request=Open a pull request",
            "publish-review-or-merge=Publish a review or merge",
            "write-tracker=Write to an external tracker",
            "install-package=Install a package",
            "access-network=Access the network",
            "push-workflows=Push a change to CI workflows");
  }

  @Test
  void actionClassIdsRoundTrip() {
    for (ActionClass a : ActionClass.values()) {
      assertThat(ActionClass.fromId(a.id())).isSameAs(a);
    }
    assertThatThrownBy(() -> ActionClass.fromId("Push"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("not an action class: Push (expected push, commit, open-pull-request, "
            + "publish-review-or-merge, write-tracker, install-package, access-network or push-workflows)");
  }

  @Test
  void onlyChangingWorkflowsIsDeniedByDefaultAndJudgedAtTheGatewayAlone() {
    for (ActionClass a : ActionClass.values()) {
      assertThat(a.defaultDecision()).as(a.id())
          .isEqualTo(a == ActionClass.PUSH_WORKFLOWS ? Decision.DENY : Decision.ALLOW);
      assertThat(a.judgedOnCommands()).as(a.id()).isEqualTo(a != ActionClass.PUSH_WORKFLOWS);
    }
  }

  @Test
  void modesHaveLowerCaseIdsAndOnlyChatIsNotReadOnly() {
    assertThat(Arrays.stream(Mode.values()).map(Mode::id))
        .containsExactly("chat", "plan", "review", "orchestrate");
    assertThat(Arrays.stream(Mode.values()).filter(Mode::isReadOnly))
        .containsExactly(Mode.PLAN, Mode.REVIEW, Mode.ORCHESTRATE);
    for (Mode m : Mode.values()) {
      assertThat(Mode.fromId(m.id())).isSameAs(m);
    }
    assertThatThrownBy(() -> Mode.fromId("CHAT"))
        .hasMessage("not a mode: CHAT (expected chat, plan, review or orchestrate)");
  }

  @Test
  void aReadOnlyModeDeniesEveryActionButNetworkReadsAndChatAsksBeforeRemoteMutations() {
    for (ActionClass a : ActionClass.values()) {
      for (Mode m : Mode.values()) {
        Decision expected = m.isReadOnly()
            ? (a == ActionClass.ACCESS_NETWORK ? Decision.ALLOW : Decision.DENY)
            : switch (a) {
              case PUSH, OPEN_PULL_REQUEST, PUBLISH_REVIEW_OR_MERGE, WRITE_TRACKER,
                  INSTALL_PACKAGE -> Decision.ASK;
              default -> Decision.ALLOW;
            };
        assertThat(m.decisionFor(a)).as("%s in %s mode", a.id(), m.id()).isEqualTo(expected);
      }
    }
    assertThat(Mode.REVIEW.denies(ActionClass.PUSH, "push to refs/heads/main")).contains(
        new Judgement(Decision.DENY, "review mode",
            "push to refs/heads/main is denied in review mode, which is read-only"));
    assertThat(Mode.CHAT.denies(ActionClass.PUSH, "push to refs/heads/main")).isEmpty();
    assertThat(Mode.PLAN.denies(ActionClass.ACCESS_NETWORK, "reading")).isEmpty();
  }

  @Test
  void decisionsAreOrderedAndParsed() {
    assertThat(Decision.ALLOW.strictest(Decision.ASK)).isEqualTo(Decision.ASK);
    assertThat(Decision.DENY.strictest(Decision.ASK)).isEqualTo(Decision.DENY);
    assertThat(Decision.fromId("deny")).isEqualTo(Decision.DENY);
    assertThatThrownBy(() -> Decision.fromId("block"))
        .hasMessage("not a decision: block (expected allow, ask or deny)");
    assertThat(UpdateKind.fromId("force")).isEqualTo(UpdateKind.FORCE);
    assertThatThrownBy(() -> UpdateKind.fromId("rewrite"))
        .hasMessage("not a kind of update: rewrite (expected create, update, force or delete)");
  }

  /** A rules document is the workspace's to write: a bad id is named in one printable line. */
  @Test
  void aBadIdIsNamedPrintably() {
    assertThatThrownBy(() -> Decision.fromId("deny\n\u202eyes"))
        .hasMessage("not a decision: deny\\x0a\\u202eyes (expected allow, ask or deny)");
    assertThatThrownBy(() -> UpdateKind.fromId(null))
        .hasMessage("not a kind of update: (none) (expected create, update, force or delete)");
    assertThatThrownBy(() -> ActionClass.fromId("push\r"))
        .hasMessageStartingWith("not an action class: push\\x0d (expected push, ");
  }
}
