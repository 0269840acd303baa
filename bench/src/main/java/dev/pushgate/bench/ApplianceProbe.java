package dev.pushgate.bench;

import dev.pushgate.testkit.RunningAppliance;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What {@code /proc} and {@code jcmd} say about a running appliance: the bench's measures. */
final class ApplianceProbe {
  private ApplianceProbe() {}

  /** A field of {@code /proc/PID/status} in kB (VmRSS, VmHWM), or -1. */
  static long statusKb(RunningAppliance app, String field) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(app.pid()),
          "status"))) {
        if (line.startsWith(field + ":")) {
          return Long.parseLong(line.substring(field.length() + 1).replace("kB", "").strip());
        }
      }
    } catch (IOException | NumberFormatException e) {
      return -1;
    }
    return -1;
  }

  /** Resets the peak RSS ({@code VmHWM}) to the current RSS; false where the kernel refuses. */
  static boolean resetPeakRss(RunningAppliance app) {
    try {
      Files.writeString(Path.of("/proc", String.valueOf(app.pid()), "clear_refs"), "5");
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** CPU time (user + system) the appliance process has used so far, in nanoseconds. */
  static long cpuNanos(RunningAppliance app) {
    try {
      String stat = Files.readString(Path.of("/proc", String.valueOf(app.pid()), "stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      // after the command name: state(0) ... utime(11) stime(12), in clock ticks
      long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
      return ticks * (1_000_000_000L / Platform.clockTicksPerSecond());
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /**
   * Returns once the appliance's CPU has not moved for 60 ms (or after 2 s): what a push left to
   * do after its answer (its token's revocation, its landed refs' write, its audit outcome) is
   * then counted with it, not with the push after it. A JVM at rest still ticks now and then
   * (its checkpointer, its timers), which the 2 s bound covers.
   */
  static void awaitIdle(RunningAppliance app) throws InterruptedException {
    long deadline = System.nanoTime() + 2_000_000_000L;
    long last = cpuNanos(app);
    long stillSince = System.nanoTime();
    while (System.nanoTime() - deadline < 0) {
      Thread.sleep(10);
      long now = cpuNanos(app);
      if (now != last) {
        last = now;
        stillSince = System.nanoTime();
      } else if (System.nanoTime() - stillSince >= 60_000_000L) {
        return;
      }
    }
  }

  /**
   * CPU ticks (user + system) per kind of thread of the appliance, from {@code
   * /proc/PID/task/&#42;/stat}: thread names with their numbers taken out ("pushgate-http-12" and
   * "pushgate-http-3" are one kind), as the kernel keeps them (15 characters).
   */
  static Map<String, Long> threadTicks(RunningAppliance app) {
    Map<String, Long> out = new TreeMap<>();
    try (var tasks = Files.list(Path.of("/proc", String.valueOf(app.pid()), "task"))) {
      for (Path t : tasks.toList()) {
        try {
          String stat = Files.readString(t.resolve("stat"));
          String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
              .replaceAll("[0-9]+", "N");
          String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          out.merge(name, Long.parseLong(f[11]) + Long.parseLong(f[12]), Long::sum);
        } catch (IOException | RuntimeException e) {
          // the thread ended meanwhile
        }
      }
    } catch (IOException e) {
      return out;
    }
    return out;
  }

  private static final Pattern COMPILATIONS = Pattern.compile("(?m)^sun\\.ci\\.totalCompiles=(\\d+)");

  /**
   * The JIT's compilations so far, every tier, OSR included ({@code sun.ci.totalCompiles} of
   * {@code jcmd PID PerfCounter.print}), or -1 when unavailable. Unlike the compiler threads' CPU,
   * the count does not move with the machine's load: whether the JIT has settled is read here
   * (docs/benchmarks.md, "The JIT's steady state").
   */
  static long jitCompilations(RunningAppliance app) {
    Matcher m = COMPILATIONS.matcher(
        Platform.run(List.of("jcmd", String.valueOf(app.pid()), "PerfCounter.print")));
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }

  /** "N (X per 100 pushes)" for the compilations between two readings, or "unknown". */
  static String jitCompilationsPer100(long before, long after, int pushes) {
    if (before < 0 || after < 0 || pushes <= 0) {
      return "unknown";
    }
    return String.format(java.util.Locale.ROOT, "%d (%.1f per 100 pushes)", after - before,
        100.0 * (after - before) / pushes);
  }

  /** {@code jcmd PID GC.heap_info}: heap used and committed, in kB ({-1,-1} when unavailable). */
  static long[] heapInfoKb(RunningAppliance app) {
    String out = Platform.run(List.of("jcmd", String.valueOf(app.pid()), "GC.heap_info"));
    Matcher m = Pattern.compile("total (\\d+)K, used (\\d+)K").matcher(out);
    return m.find() ? new long[] {Long.parseLong(m.group(2)), Long.parseLong(m.group(1))}
        : new long[] {-1, -1};
  }
}
