package dev.pushgate.broker;

import dev.pushgate.testkit.MutableClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records each wait and moves the clock instead of sleeping. */
final class RecordingSleeper implements Sleeper {
  private final MutableClock clock;
  private final List<Duration> waits = new CopyOnWriteArrayList<>();

  RecordingSleeper(MutableClock clock) {
    this.clock = clock;
  }

  @Override
  public void sleep(Duration duration) {
    waits.add(duration);
    clock.advance(duration);
  }

  List<Duration> waits() {
    return List.copyOf(waits);
  }
}
