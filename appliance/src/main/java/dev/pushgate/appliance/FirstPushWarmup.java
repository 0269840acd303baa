package dev.pushgate.appliance;

import dev.pushgate.gateway.Gateway;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the first pushes after a start do once that later pushes do not, done on a thread of its
 * own as soon as the appliance is ready, so that the first push finds it done (issue 33): the
 * gateway's caches opened with their refs and pack indexes read, and the push path's classes
 * loaded and linked from {@link #CLASSES}. Local work only: nothing is minted, signed or sent
 * upstream, so an unreachable upstream changes nothing here. Bounded by {@link #CPU_BUDGET} of
 * this thread's CPU; whatever fails is skipped (the push that needs it does it, as before).
 */
final class FirstPushWarmup implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(FirstPushWarmup.class);

  /** One class name a line; {@code #} starts a comment. */
  static final String CLASSES = "first-push-classes.txt";
  /** Measured at about a third of this on a 2-core Xeon (docs/benchmarks.md). */
  static final Duration CPU_BUDGET = Duration.ofSeconds(1);

  private final Gateway gateway;
  private final List<String> classes;
  private final Duration budget;
  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
  private volatile boolean stopped;
  private long cpuAtStart;

  FirstPushWarmup(Gateway gateway, List<String> classes, Duration budget) {
    this.gateway = gateway;
    this.classes = List.copyOf(classes);
    this.budget = budget;
  }

  /** Starts the warm-up on a daemon thread; {@link #stop} ends it at its next step. */
  static FirstPushWarmup start(Gateway gateway) {
    FirstPushWarmup warmup = new FirstPushWarmup(gateway, listed(), CPU_BUDGET);
    Thread t = new Thread(warmup, "pushgate-warmup");
    t.setDaemon(true);
    t.start();
    return warmup;
  }

  void stop() {
    stopped = true;
  }

  @Override
  public void run() {
    cpuAtStart = cpuNanos();
    BooleanSupplier more = () -> !stopped && cpuNanos() - cpuAtStart < budget.toNanos();
    int caches = 0;
    try {
      caches = gateway.warmCaches(more);
    } catch (IOException | RuntimeException e) {
      log.debug("caches not warmed: {}", e.toString());
    }
    int loaded = load(more);
    log.info("warmed for the first pushes: {} caches, {} of {} classes, {} ms of CPU", caches,
        loaded, classes.size(), (cpuNanos() - cpuAtStart) / 1_000_000);
  }

  /** Loads and links the listed classes without initialising them; the number loaded. */
  int load(BooleanSupplier more) {
    ClassLoader loader = FirstPushWarmup.class.getClassLoader();
    int loaded = 0;
    for (String name : classes) {
      if (!more.getAsBoolean()) {
        break;
      }
      try {
        // Not initialised: a static initialiser runs where it always did, at first use, so a
        // failure there is the push's to report, not a class poisoned here for good. Asking for
        // the fields links (verifies) the class, the part of loading that costs most.
        Class.forName(name, false, loader).getDeclaredFields();
        loaded++;
      } catch (ClassNotFoundException | LinkageError | SecurityException gone) {
        // renamed or removed since the list was made: its first use loads whatever replaced it
      }
    }
    return loaded;
  }

  private long cpuNanos() {
    return threads.isCurrentThreadCpuTimeSupported() ? threads.getCurrentThreadCpuTime() : 0;
  }

  /** The classes of {@link #CLASSES}; none when the resource is missing. */
  static List<String> listed() {
    List<String> names = new ArrayList<>();
    try (InputStream in = FirstPushWarmup.class.getResourceAsStream(CLASSES)) {
      if (in == null) {
        return names;
      }
      BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      for (String line; (line = r.readLine()) != null; ) {
        String name = line.strip();
        if (!name.isEmpty() && !name.startsWith("#")) {
          names.add(name);
        }
      }
    } catch (IOException e) {
      log.debug("{} not read: {}", CLASSES, e.toString());
    }
    return names;
  }
}
