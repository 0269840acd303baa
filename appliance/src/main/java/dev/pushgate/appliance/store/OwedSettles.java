package dev.pushgate.appliance.store;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The outcome records a push owes the audit between git's answer and their write (docs/audit.md):
 * a reader of the audit waits for the ones owed when it asked, so that nobody who reads the audit
 * after {@code git push} returned finds the push still {@code pending}. Owing one costs a map
 * entry; the write itself stays off the answer's path.
 */
final class OwedSettles {
  /** One outcome owed: {@link #written} once its write has ended, however it ended. */
  static final class Owed {
    private final OwedSettles of;
    private final CompletableFuture<Void> ended = new CompletableFuture<>();

    private Owed(OwedSettles of) {
      this.of = of;
    }

    void written() {
      of.owed.remove(this);
      ended.complete(null);
    }
  }

  private final Set<Owed> owed = ConcurrentHashMap.newKeySet();

  Owed owe() {
    Owed o = new Owed(this);
    owed.add(o);
    return o;
  }

  /**
   * Waits until every outcome owed now has been written (or its write failed), at most {@code
   * within}; whether they all were. Outcomes owed after the call are not waited for: their pushes
   * had not been answered when the reader asked. One still not written when the wait ends is
   * owed no longer: a push whose close never came (its thread gone) holds one reader back, never
   * every reader after it.
   */
  boolean awaitOwedNow(Duration within) throws InterruptedException {
    List<Owed> now = List.copyOf(owed);
    if (now.isEmpty()) {
      return true;
    }
    try {
      CompletableFuture.allOf(now.stream().map(o -> o.ended).toArray(CompletableFuture<?>[]::new))
          .get(within.toNanos(), TimeUnit.NANOSECONDS);
      return true;
    } catch (TimeoutException e) {
      now.stream().filter(o -> !o.ended.isDone()).forEach(owed::remove);
      return false;
    } catch (ExecutionException e) {
      throw new AssertionError("an owed outcome completes normally", e);
    }
  }
}
