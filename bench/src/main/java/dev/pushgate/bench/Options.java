package dev.pushgate.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/** The bench's command line. */
record Options(
    boolean quick,
    boolean jfr,
    Set<String> only,
    Path jar,
    Path out,
    Path work,
    boolean keep,
    List<String> applianceJvm,
    int runs,
    int warmup,
    int starts,
    int again,
    int maxWait) {

  static final Set<String> SECTIONS =
      Set.of("startup", "small", "phases", "large", "memory", "deny", "concurrency", "profile");

  static final String USAGE = """
      usage: bench/run [--quick] [--jfr] [--only SECTION,...] [--runs N] [--warmup N] [--starts N]
                       [--again N] [--out DIR]
                       [--work DIR] [--keep] [--appliance-jvm "OPTS"] [--jar PATH] [--max-wait SECONDS]

        --quick          a short run: fewer repetitions, 20 MiB instead of 100 MiB, no 1 GiB push,
                         concurrency up to 16
        --jfr            also profile the gateway push (section "profile"): a second appliance
                         started with -XX:StartFlightRecording, its events aggregated per workload;
                         its small pushes as many as --runs (at least 15) after as many warm-up
                         pushes as --warmup (at least 20), CPU sampled every 2 ms
        --only LIST      run only these sections: startup, small, phases, large, memory, deny,
                         concurrency, profile (--jfr adds profile)
        --runs N         measured repetitions of the small and large pushes (default 60 and 7;
                         --quick: 10 and 5)
        --warmup N       untimed small pushes each, direct and gateway, before the small push is
                         measured, so that both paths are compiled by the JIT as in a
                         long-running appliance (default: at least 400, then blocks of 100
                         until a block's pushes made the JIT compile fewer than 25 methods
                         per 100 pushes, at most 3,000; after a fixed 400 it still compiled
                         some 150; --quick: 20). The upstream-moved pushes (the cache's fetch
                         from upstream) then have their own: their first 20 rounds reported
                         apart (cold), then half as many untimed rounds of that kind, the
                         same way, before the measured ones
        --starts N       start-ups whose first 3 pushes are timed (default 3; --quick: 1): the
                         first, then restarts of the appliance after the other sections
        --again N        small pushes each in section 1b, at the end (default 10; --quick: 5);
                         each push's CPU counted until the appliance is idle again, so that
                         the work it leaves after its answer (a revocation, the landed refs'
                         write) is its own, not the next push's
        --out DIR        where results.md, the JFR recording and the appliance logs go
                         (default: bench/target/results)
        --work DIR       scratch directory for data dirs and repositories (default: a new
                         directory under /tmp, deleted at the end unless --keep)
        --appliance-jvm  JVM options of the appliance (default: -Xmx512m, as the e2e tests)
        --jar PATH       the appliance jar (default: appliance/target/pushgate.jar)
        --max-wait S     before each section, wait up to S seconds for the machine to be quiet
                         (under 10% CPU busy); default 60, 0 to not wait
      """;

  static Options parse(String[] args) {
    boolean quick = false;
    boolean jfr = false;
    Set<String> only = null;
    Path jar = Path.of("appliance/target/pushgate.jar");
    Path out = Path.of("bench/target/results");
    Path work = null;
    boolean keep = false;
    List<String> jvm = List.of("-Xmx512m");
    int runs = -1;
    int warmup = -1;
    int starts = -1;
    int again = -1;
    int maxWait = 60;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      switch (a) {
        case "--quick" -> quick = true;
        case "--jfr" -> jfr = true;
        case "--keep" -> keep = true;
        case "--only" -> {
          only = Set.copyOf(Arrays.asList(value(args, ++i, a).split(",")));
          for (String s : only) {
            if (!SECTIONS.contains(s)) {
              throw new IllegalArgumentException("unknown section '" + s + "'; sections: "
                  + String.join(", ", new java.util.TreeSet<>(SECTIONS)));
            }
          }
        }
        case "--runs" -> runs = Integer.parseInt(value(args, ++i, a));
        case "--warmup" -> warmup = Integer.parseInt(value(args, ++i, a));
        case "--starts" -> starts = Integer.parseInt(value(args, ++i, a));
        case "--again" -> again = Integer.parseInt(value(args, ++i, a));
        case "--max-wait" -> maxWait = Integer.parseInt(value(args, ++i, a));
        case "--jar" -> jar = Path.of(value(args, ++i, a));
        case "--out" -> out = Path.of(value(args, ++i, a));
        case "--work" -> work = Path.of(value(args, ++i, a));
        case "--appliance-jvm" -> jvm = jvmOptions(value(args, ++i, a));
        case "-h", "--help" -> throw new HelpRequested();
        default -> throw new IllegalArgumentException("unknown option '" + a + "'");
      }
    }
    if (only == null) {
      only = new java.util.HashSet<>(SECTIONS);
      if (!jfr) {
        only.remove("profile");
      }
      only = Set.copyOf(only);
    } else if (jfr) {
      java.util.Set<String> with = new java.util.HashSet<>(only);
      with.add("profile");
      only = Set.copyOf(with);
    }
    if (runs != -1 && runs < 1) {
      throw new IllegalArgumentException("--runs must be at least 1: " + runs);
    }
    if (starts != -1 && starts < 1) {
      throw new IllegalArgumentException("--starts must be at least 1: " + starts);
    }
    if (again != -1 && again < 1) {
      throw new IllegalArgumentException("--again must be at least 1: " + again);
    }
    if (warmup < -1) {
      throw new IllegalArgumentException("--warmup must be at least 0: " + warmup);
    }
    return new Options(quick, jfr, only, jar.toAbsolutePath(), out.toAbsolutePath(),
        work == null ? null : work.toAbsolutePath(), keep, jvm, runs, warmup,
        starts == -1 ? (quick ? 1 : 3) : starts, again == -1 ? (quick ? 5 : 10) : again,
        Math.max(0, maxWait));
  }

  /** {@code --appliance-jvm}'s value: JVM options separated by white space. */
  static List<String> jvmOptions(String value) {
    List<String> opts = new ArrayList<>();
    for (String o : value.trim().split("\\s+")) {
      if (!o.isEmpty()) {
        opts.add(o);
      }
    }
    return List.copyOf(opts);
  }

  private static String value(String[] args, int i, String option) {
    if (i >= args.length) {
      throw new IllegalArgumentException(option + " needs a value");
    }
    return args[i];
  }

  boolean runs(String section) {
    return only.contains(section);
  }

  int smallRuns() {
    return runs > 0 ? runs : quick ? 10 : 60;
  }

  /** The fewest untimed small-push rounds before section 1 is measured. */
  int smallWarmup() {
    return warmup >= 0 ? warmup : quick ? 20 : 400;
  }

  /**
   * The most: by default the warm-up goes on past {@link #smallWarmup} until the JIT has settled
   * ({@link JitWarmUp}); a {@code --warmup} given is that many rounds exactly.
   */
  int smallWarmupMax() {
    return warmup >= 0 || quick ? smallWarmup() : 3000;
  }

  int largeRuns() {
    return runs > 0 ? Math.min(runs, 10) : quick ? 5 : 7;
  }

  long largeBytes() {
    return (quick ? 20L : 100L) * 1024 * 1024;
  }

  /** Thrown by {@code --help}. */
  static final class HelpRequested extends RuntimeException {
    private static final long serialVersionUID = 1L;

    HelpRequested() {
      super(null, null, false, false);
    }
  }
}
