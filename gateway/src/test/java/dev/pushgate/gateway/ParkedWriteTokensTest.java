package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.broker.RepoSlug;
import dev.pushgate.policy.PushRules;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Tokens minted at a push's advertisement: used by the next push, else revoked unused. */
class ParkedWriteTokensTest {
  private static final RepoSlug WIDGET = new RepoSlug("acme", "widget");
  private static final RunContext RUN =
      new RunContext("run-1", "ws-1", WIDGET, List.of(), PushRules.ALLOW_ALL);
  private final RecordingUpstream upstream = new RecordingUpstream(null);

  @Test
  void theNextPushTakesTheTokenMintedAheadAndNoOtherIsMinted() throws Exception {
    try (ParkedWriteTokens parked = new ParkedWriteTokens(Duration.ofSeconds(30))) {
      parked.mintAhead(RUN, WIDGET, this::mint);
      parked.mintAhead(RUN, WIDGET, this::mint); // a second advertisement: the same token waits

      EarlyWriteToken token = parked.take(RUN, WIDGET, this::mint);

      assertThat(token.take()).isSameAs(upstream.leases.get(0));
      assertThat(upstream.leases).hasSize(1);
      assertThat(parked.take(RUN, WIDGET, this::mint)).as("one push per token")
          .isNotSameAs(token);
      assertThat(upstream.leases).hasSize(2);
    }
  }

  @Test
  void aTokenNoPushTakesIsRevokedUnusedOnceItIsTooOld() throws Exception {
    try (ParkedWriteTokens parked = new ParkedWriteTokens(Duration.ofMillis(200))) {
      parked.mintAhead(RUN, WIDGET, this::mint);
      long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
      while (upstream.leases.get(0).closes.get() == 0 && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }

      assertThat(upstream.leases.get(0).closes).hasValue(1);
      parked.take(RUN, WIDGET, this::mint).take();
      assertThat(upstream.leases).as("the next push mints its own").hasSize(2);
    }
  }

  @Test
  void aPushRefusedBeforeItsPackRevokesTheTokenMintedForIt() {
    try (ParkedWriteTokens parked = new ParkedWriteTokens(Duration.ofSeconds(30))) {
      parked.mintAhead(RUN, WIDGET, this::mint);
      parked.discard(RUN, WIDGET);

      assertThat(upstream.leases).singleElement()
          .satisfies(l -> assertThat(l.closes).hasValue(1));
    }
  }

  @Test
  void closingRevokesWhatStillWaits() {
    ParkedWriteTokens parked = new ParkedWriteTokens(Duration.ofSeconds(30));
    parked.mintAhead(RUN, WIDGET, this::mint);
    parked.mintAhead(RUN, new RepoSlug("acme", "docs"), this::mint);

    parked.close();

    assertThat(upstream.leases).hasSize(2).allSatisfy(l -> assertThat(l.closes).hasValue(1));
  }

  private EarlyWriteToken mint() {
    return EarlyWriteToken.mint(upstream, RUN, WIDGET, Runnable::run);
  }
}
