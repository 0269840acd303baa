package dev.pushgate.broker;

import java.time.Duration;

/** Waits between retries. A port so tests can move a fake clock instead of sleeping. */
@FunctionalInterface
public interface Sleeper {
  Sleeper SYSTEM = duration -> Thread.sleep(duration.toMillis());

  void sleep(Duration duration) throws InterruptedException;
}
