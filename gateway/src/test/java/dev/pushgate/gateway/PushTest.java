package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pushgate.policy.PushRules;
import dev.pushgate.types.RepoSlug;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.transport.ReceiveCommand;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A push owns its write tokens: each is revoked exactly once, whichever way the push went. */
class PushTest {
  private static final RepoSlug REPO = new RepoSlug("acme", "widget");
  private static final RunContext RUN =
      new RunContext("run-1", "ws-1", REPO, List.of(), PushRules.ALLOW_ALL);

  private final RecordingUpstream upstream = new RecordingUpstream("http://127.0.0.1:9/x.git");
  private final ExecutorService minting = Executors.newSingleThreadExecutor();

  @AfterEach
  void stop() {
    minting.shutdownNow();
  }

  private Push push() {
    return new Push(RUN, REPO, Optional.empty(), upstream);
  }

  @Test
  void aTokenMintedAheadAndNeverUsedIsRevokedOnceAtClose() throws Exception {
    Push push = push();
    push.mintAhead(minting);
    push.close();
    push.close();

    awaitMintsSettled();
    assertOneTokenMintedAndRevokedOnce();
  }

  @Test
  void aTokenUsedIsRevokedOnceWhenUpstreamHasAnsweredAndNotAgainAtClose() throws Exception {
    try (Push push = push()) {
      push.mintAhead(minting);
      WriteTokenLease lease = push.writeToken(false);
      assertThat(push.writeToken(false)).as("the same token, taken twice").isSameAs(lease);
      push.revokeWriteTokens();
      assertThat(((RecordingUpstream.Lease) lease).closes).hasValue(1);
    }
    assertOneTokenMintedAndRevokedOnce();
  }

  @Test
  void tokensRetiredOnceUpstreamAnsweredAreNotHandedOutAndAreRevokedAtCloseThenTheRest()
      throws Exception {
    List<String> order = new java.util.concurrent.CopyOnWriteArrayList<>();
    Push push = push();
    push.mintAhead(minting);
    WriteTokenLease lease = push.writeToken(false);
    push.afterAnswer(() -> order.add("after the answer, closes " + closes(lease)));

    push.retireWriteTokens();

    assertThat(closes(lease)).as("not revoked before the push's answer").isZero();
    assertThatThrownBy(() -> push.writeToken(false)).isInstanceOf(UpstreamException.class);
    assertThatThrownBy(() -> push.writeToken(true)).isInstanceOf(UpstreamException.class);
    assertThat(order).isEmpty();
    push.close();
    push.close();
    assertThat(order).containsExactly("after the answer, closes 1");
    assertOneTokenMintedAndRevokedOnce();
  }

  private static int closes(WriteTokenLease lease) {
    return ((RecordingUpstream.Lease) lease).closes.get();
  }

  @Test
  void aPushChangingWorkflowsMintsItsOwnTokenAndBothAreRevoked() throws Exception {
    try (Push push = push()) {
      push.mintAhead(minting);
      assertThat(((RecordingUpstream.Lease) push.writeToken(true)).workflows).isTrue();
    }
    awaitMintsSettled();
    assertThat(upstream.leases).extracting(l -> l.workflows).containsExactlyInAnyOrder(false, true);
    assertThat(upstream.leases).allSatisfy(l -> assertThat(l.closes).hasValue(1));
  }

  @Test
  void aPushWithoutATokenMintedAheadMintsWhenJudgedAndNothingIsLeftAfterIt() throws Exception {
    Push push = push();
    WriteTokenLease lease = push.writeToken(false);
    push.close();

    assertThat(((RecordingUpstream.Lease) lease).closes).hasValue(1);
    assertThatThrownBy(() -> push.writeToken(false))
        .as("no token for a push that ended").isInstanceOf(UpstreamException.class);
    assertThat(upstream.leases).hasSize(1);
  }

  @Test
  void aPushThatEndsBeforeAnythingIsMintedRevokesNothing() {
    push().close();

    assertThat(upstream.leases).isEmpty();
  }

  @Test
  void aFailedMintIsTheForwardsFailureAndLeavesNothingToRevoke() throws Exception {
    upstream.mintFailure = new UpstreamException("GitHub is down");
    try (Push push = push()) {
      push.mintAhead(minting);
      assertThatThrownBy(() -> push.writeToken(false)).hasMessage("GitHub is down");
    }
    assertThat(upstream.leases).isEmpty();
  }

  @Test
  void crossesIntoJgitAsOneAttributeAndTheVerdictIsJudgedOnce() {
    Push push = new Push(RUN, REPO, JudgedCommands.read(PushRules.ALLOW_ALL,
        List.of("0".repeat(40) + " " + "b".repeat(40) + " refs/heads/x\0report-status")),
        upstream);
    java.util.Map<String, Object> attributes = new java.util.HashMap<>();
    jakarta.servlet.ServletRequest req = (jakarta.servlet.ServletRequest)
        java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[] {jakarta.servlet.ServletRequest.class}, (proxy, m, args) ->
                switch (m.getName()) {
                  case "getAttribute" -> attributes.get((String) args[0]);
                  case "setAttribute" -> attributes.put((String) args[0], args[1]);
                  default -> throw new UnsupportedOperationException(m.getName());
                });

    assertThat(Push.of(req)).isEmpty();
    push.attachTo(req);
    assertThat(Push.of(req)).containsSame(push);

    ReceiveCommand received =
        new ReceiveCommand(ObjectId.zeroId(), ObjectId.fromString("b".repeat(40)), "refs/heads/x");
    assertThat(push.verdictOf(received)).isSameAs(push.judged().orElseThrow().verdicts().get(0));
  }

  private void assertOneTokenMintedAndRevokedOnce() {
    assertThat(upstream.leases).singleElement()
        .satisfies(l -> assertThat(l.closes).hasValue(1));
  }

  /** The mint ahead runs on {@link #minting}; its revocation follows it there. */
  private void awaitMintsSettled() throws Exception {
    CompletableFuture.runAsync(() -> { }, minting).get(10, TimeUnit.SECONDS);
  }
}
