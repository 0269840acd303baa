package dev.pushgate.appliance.runs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.broker.InstallationToken;
import dev.pushgate.broker.Secret;
import dev.pushgate.gateway.WriteTokenLease;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WriteTokenShelfTest {
  private static final Duration REFRESH_BEFORE = Duration.ofMinutes(5);
  private static final String KEY = "acme/widget";

  private Instant now = Instant.parse("2026-12-02T12:00:00Z");
  private final Clock clock = new Clock() {
    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }
  };
  private final List<String> revoked = new ArrayList<>();
  private final WriteTokenShelf shelf =
      new WriteTokenShelf(clock, REFRESH_BEFORE, r -> revoked.add(r.token().token().reveal()));
  private long ledgerIds;

  private WriteTokenShelf.Recorded minted(String value) {
    return new WriteTokenShelf.Recorded(new InstallationToken(Secret.of(value),
        now.plus(Duration.ofHours(1)), 7, Map.of("contents", "write")), ++ledgerIds);
  }

  @Test
  void aBurstOfPushesSharesOneToken() {
    shelf.keep(KEY, minted("ghs_one")).close();

    try (WriteTokenLease second = shelf.lend(KEY)) {
      assertThat(second.token().reveal()).isEqualTo("ghs_one");
    }
    now = now.plus(WriteTokenShelf.IDLE.minusSeconds(1));
    try (WriteTokenLease third = shelf.lend(KEY)) {
      assertThat(third.token().reveal()).isEqualTo("ghs_one");
    }
    assertThat(revoked).isEmpty();
    assertThat(shelf.lend("acme/other")).as("another repository").isNull();
  }

  @Test
  void aTokenIdleForTwoMinutesIsRevokedAndNotLentAgain() {
    shelf.keep(KEY, minted("ghs_one")).close();
    now = now.plus(WriteTokenShelf.IDLE);

    assertThat(shelf.lend(KEY)).isNull();
    shelf.putAwayStale();

    assertThat(revoked).containsExactly("ghs_one");
    assertThat(shelf.size()).isZero();
  }

  @Test
  void aTokenInUseIsNeitherIdleNorRevokedUnderItsPush() {
    WriteTokenLease longPush = shelf.keep(KEY, minted("ghs_one"));
    now = now.plus(WriteTokenShelf.IDLE.multipliedBy(3));

    shelf.putAwayStale();
    assertThat(revoked).isEmpty();

    longPush.close();
    longPush.close();
    now = now.plus(WriteTokenShelf.IDLE);
    shelf.putAwayStale();
    assertThat(revoked).containsExactly("ghs_one");
  }

  @Test
  void aTokenNearExpiryIsReplacedAndRevokedOnceItsLastPushIsDone() {
    WriteTokenLease first = shelf.keep(KEY, minted("ghs_old"));
    now = now.plus(Duration.ofHours(1)).minus(REFRESH_BEFORE);

    assertThat(shelf.lend(KEY)).as("too close to expiry").isNull();
    WriteTokenLease second = shelf.keep(KEY, minted("ghs_new"));
    assertThat(revoked).as("still used by the first push").isEmpty();

    first.close();
    assertThat(revoked).containsExactly("ghs_old");
    assertThat(second.token().reveal()).isEqualTo("ghs_new");
    second.close();
    assertThat(shelf.lend(KEY).token().reveal()).isEqualTo("ghs_new");
  }

  @Test
  void atTeardownEveryTokenIsHandedOverAndNothingIsLentAgain() {
    shelf.keep(KEY, minted("ghs_one")).close();
    WriteTokenLease inFlight = shelf.keep("acme/other", minted("ghs_two"));

    assertThat(shelf.close()).extracting(r -> r.token().token().reveal())
        .containsExactlyInAnyOrder("ghs_one", "ghs_two");
    inFlight.close();

    assertThat(revoked).as("the teardown revokes them from the ledger").isEmpty();
    assertThat(shelf.lend(KEY)).isNull();
  }

  @Test
  void aTokenMintedWhileTheRunEndsServesItsPushOnlyAndIsRevokedAfter() {
    shelf.close();

    WriteTokenLease late = shelf.keep(KEY, minted("ghs_late"));
    assertThat(shelf.lend(KEY)).isNull();
    late.close();

    assertThat(revoked).containsExactly("ghs_late");
  }
}
