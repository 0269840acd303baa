package dev.pushgate.appliance.runs;

import dev.pushgate.broker.InstallationToken;
import dev.pushgate.broker.Secret;
import dev.pushgate.gateway.WriteTokenLease;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * One run's write tokens: one per repository and scope, lent to the run's pushes while it is
 * fresh, so that a burst of pushes mints once instead of once per push. A token is put away
 * (handed to {@code retire}, which revokes it) once no push has used it for {@link #IDLE}, when
 * it nears expiry, and at teardown with everything else the run holds.
 */
final class WriteTokenShelf {
  /** How long a token waits for the run's next push before it is revoked. */
  static final Duration IDLE = Duration.ofMinutes(2);

  /** A write token and its ledger row. */
  record Recorded(InstallationToken token, long ledgerId) {}

  /** Revokes a token put away; runs it off the caller's thread. */
  interface Retirer {
    void retire(Recorded token);
  }

  private static final class Slot {
    final Recorded recorded;
    int leases;
    Instant lastUsed;
    /** To be revoked once no push holds it. */
    boolean retired;
    /** Left to the teardown, which revokes every token of the run from the ledger. */
    boolean handedOver;

    Slot(Recorded recorded, Instant now) {
      this.recorded = recorded;
      this.lastUsed = now;
    }
  }

  private final Clock clock;
  private final Duration refreshBefore;
  private final Retirer retirer;
  private final Map<String, Slot> slots = new HashMap<>();
  private boolean closed;

  WriteTokenShelf(Clock clock, Duration refreshBefore, Retirer retirer) {
    this.clock = clock;
    this.refreshBefore = refreshBefore;
    this.retirer = retirer;
  }

  /** Lends the fresh token kept under {@code key}, or nothing when a new one must be minted. */
  synchronized WriteTokenLease lend(String key) {
    Slot slot = slots.get(key);
    if (slot == null || closed || !fresh(slot, clock.instant())) {
      return null;
    }
    return lease(slot);
  }

  /** Keeps a newly minted token under {@code key} and lends it; the one it replaces is put away. */
  synchronized WriteTokenLease keep(String key, Recorded minted) {
    Slot slot = new Slot(minted, clock.instant());
    if (closed) {
      // The run ended while the token was being minted: it serves this push only.
      slot.retired = true;
    } else {
      Slot old = slots.put(key, slot);
      if (old != null) {
        putAway(old);
      }
    }
    return lease(slot);
  }

  /** Puts away the tokens that are idle or near expiry. */
  synchronized void putAwayStale() {
    Instant now = clock.instant();
    for (Iterator<Slot> it = slots.values().iterator(); it.hasNext(); ) {
      Slot slot = it.next();
      if (!fresh(slot, now)) {
        it.remove();
        putAway(slot);
      }
    }
  }

  /**
   * At teardown: lends nothing more and forgets every token; the teardown revokes them all from
   * the ledger. Returns what was kept.
   */
  synchronized List<Recorded> close() {
    closed = true;
    List<Recorded> kept = new ArrayList<>();
    for (Slot slot : slots.values()) {
      slot.retired = true;
      slot.handedOver = true;
      kept.add(slot.recorded);
    }
    slots.clear();
    return kept;
  }

  synchronized int size() {
    return slots.size();
  }

  private boolean fresh(Slot slot, Instant now) {
    return !slot.retired
        && slot.recorded.token().expiresAt().minus(refreshBefore).isAfter(now)
        && (slot.leases > 0 || slot.lastUsed.plus(IDLE).isAfter(now));
  }

  private void putAway(Slot slot) {
    slot.retired = true;
    if (slot.leases == 0) {
      retirer.retire(slot.recorded);
    }
  }

  private WriteTokenLease lease(Slot slot) {
    slot.leases++;
    slot.lastUsed = clock.instant();
    return new WriteTokenLease() {
      private boolean returned;

      @Override
      public Secret token() {
        return slot.recorded.token().token();
      }

      @Override
      public void close() {
        synchronized (WriteTokenShelf.this) {
          if (returned) {
            return;
          }
          returned = true;
          slot.leases--;
          slot.lastUsed = clock.instant();
          if (slot.retired && !slot.handedOver && slot.leases == 0) {
            retirer.retire(slot.recorded);
          }
        }
      }
    };
  }
}
