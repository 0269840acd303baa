package dev.pushgate.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** Facts about the machine and small process helpers. */
final class Platform {
  private static long ticks = -1;

  private Platform() {}

  /** Closes each, ignoring what closing throws: for both ends of a relayed connection. */
  static void closeQuietly(java.io.Closeable... closeables) {
    for (java.io.Closeable c : closeables) {
      try {
        c.close();
      } catch (IOException ignored) {
        // closing: the peer may have closed first
      }
    }
  }

  /** The load averages of 1, 5 and 15 minutes, from {@code /proc/loadavg} ("?" if unknown). */
  static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).strip().split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException e) {
      return "?";
    }
  }

  /** Runs a command, returns stdout and stderr together ("" on failure). */
  static String run(List<String> cmd) {
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      p.waitFor(120, TimeUnit.SECONDS);
      return out;
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }

  static synchronized long clockTicksPerSecond() {
    if (ticks < 0) {
      try {
        ticks = Long.parseLong(run(List.of("getconf", "CLK_TCK")).strip());
      } catch (NumberFormatException e) {
        ticks = 100;
      }
    }
    return ticks;
  }

  static String cpuModel() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) {
          return line.substring(line.indexOf(':') + 1).strip();
        }
      }
    } catch (IOException e) {
      return "unknown";
    }
    return "unknown";
  }

  static long memTotalMb() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
        if (line.startsWith("MemTotal:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024;
        }
      }
    } catch (IOException | NumberFormatException e) {
      return -1;
    }
    return -1;
  }

  static String javaVersion() {
    return run(List.of("java", "-version")).strip();
  }

  static long freeDiskMb(Path dir) {
    try {
      return Files.getFileStore(dir).getUsableSpace() / (1024 * 1024);
    } catch (IOException e) {
      return -1;
    }
  }

  /** Size of everything under a directory, in bytes. */
  static long du(Path dir) {
    if (!Files.exists(dir)) {
      return 0;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(Files::isRegularFile).mapToLong(p -> {
        try {
          return Files.size(p);
        } catch (IOException e) {
          return 0;
        }
      }).sum();
    } catch (IOException e) {
      return 0;
    }
  }

  static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.deleteIfExists(p);
        } catch (IOException ignored) {
          // best effort: a temp directory
        }
      });
    } catch (IOException ignored) {
      // best effort
    }
  }

  /** Busy share of all CPUs over {@code millis}, from {@code /proc/stat} (0..1; -1 if unknown). */
  static double busyShare(long millis) {
    try {
      long[] a = cpuTimes();
      Thread.sleep(millis);
      long[] b = cpuTimes();
      double total = b[0] - a[0];
      return total <= 0 ? -1 : 1 - (b[1] - a[1]) / total;
    } catch (IOException | RuntimeException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /** {total, idle + iowait} jiffies of all CPUs. */
  private static long[] cpuTimes() throws IOException {
    String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
    long total = 0;
    for (int i = 1; i < f.length; i++) {
      total += Long.parseLong(f[i]);
    }
    return new long[] {total, Long.parseLong(f[4]) + Long.parseLong(f[5])};
  }

  /**
   * Waits (at most {@code maxSeconds}) until the machine is quiet: less than 10% of the CPUs busy
   * over a second. Returns the busy share last seen.
   */
  static double awaitQuiet(int maxSeconds) {
    long deadline = System.nanoTime() + maxSeconds * 1_000_000_000L;
    double busy = busyShare(1000);
    while (busy > 0.10 && System.nanoTime() < deadline) {
      busy = busyShare(1000);
    }
    return busy;
  }

  /** Busy jiffies of the whole machine (all CPUs, everything but idle and iowait). */
  static long machineBusyTicks() {
    try {
      long[] t = cpuTimes();
      return t[0] - t[1];
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /**
   * CPU ticks of this JVM and of its children that have been waited for (git, jcmd, the
   * appliances that were stopped): utime + stime + cutime + cstime of {@code /proc/self/stat}.
   */
  static long selfAndChildrenTicks() {
    return statTicks(Path.of("/proc/self/stat"), true);
  }

  /** utime + stime of a live process, in ticks (-1 if gone). */
  static long processTicks(long pid) {
    return statTicks(Path.of("/proc", String.valueOf(pid), "stat"), false);
  }

  /**
   * utime + stime of those of a live process's threads whose name starts with one of {@code
   * prefixes}, in ticks; 0 if none can be read. A thread that ends meanwhile takes its ticks with
   * it, so a difference of two readings may come out low.
   */
  static long threadTicks(long pid, String... prefixes) {
    long t = 0;
    try (Stream<Path> threads = Files.list(Path.of("/proc", String.valueOf(pid), "task"))) {
      for (Path task : (Iterable<Path>) threads::iterator) {
        try {
          String s = Files.readString(task.resolve("stat"));
          String name = s.substring(s.indexOf('(') + 1, s.lastIndexOf(')'));
          if (Stream.of(prefixes).anyMatch(name::startsWith)) {
            t += statTicks(task.resolve("stat"), false);
          }
        } catch (IOException | RuntimeException gone) {
          // ended between the listing and the read
        }
      }
    } catch (IOException | RuntimeException e) {
      return 0;
    }
    return t;
  }

  private static long statTicks(Path stat, boolean children) {
    try {
      String s = Files.readString(stat);
      String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
      long t = Long.parseLong(f[11]) + Long.parseLong(f[12]);
      if (children) {
        t += Long.parseLong(f[13]) + Long.parseLong(f[14]);
      }
      return t;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }
}
