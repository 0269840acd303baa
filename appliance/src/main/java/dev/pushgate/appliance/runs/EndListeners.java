package dev.pushgate.appliance.runs;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Who hears that a run ended; one listener's failure keeps none of the others from hearing. */
final class EndListeners {
  private static final Logger log = LoggerFactory.getLogger(EndListeners.class);

  private final List<Consumer<String>> listeners = new CopyOnWriteArrayList<>();

  void add(Consumer<String> listener) {
    listeners.add(listener);
  }

  void tell(String runId) {
    for (Consumer<String> l : listeners) {
      try {
        l.accept(runId);
      } catch (RuntimeException e) {
        log.warn("run {}: a listener of its end failed: {}", runId, e.toString());
      }
    }
  }
}
