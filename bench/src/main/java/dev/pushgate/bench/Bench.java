package dev.pushgate.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The benchmark of issue 8: the appliance jar as a process, the real git CLI, pushes through the
 * gateway against the same pushes straight to the local forge. See {@code docs/benchmarks.md}.
 * Each section is a class of its own on the shared {@link BenchRun}; this class runs them in the
 * report's order.
 */
public final class Bench {
  private Bench() {}

  public static void main(String[] args) {
    Options o;
    try {
      o = Options.parse(args);
    } catch (Options.HelpRequested h) {
      System.out.print(Options.USAGE);
      return;
    } catch (IllegalArgumentException e) {
      System.err.println("bench: " + e.getMessage());
      System.err.print(Options.USAGE);
      System.exit(2);
      return;
    }
    if (!Files.isRegularFile(o.jar())) {
      System.err.println("bench: " + o.jar() + " is missing; build the appliance first"
          + " (mvn -B -q -DskipTests package -pl appliance -am), or use bench/run");
      System.exit(2);
    }
    try (java.util.zip.ZipFile z = new java.util.zip.ZipFile(o.jar().toFile())) {
      if (z.getEntry("dev/pushgate/appliance/cli/Main.class") == null) {
        throw new IOException("no dev.pushgate.appliance.cli.Main in it");
      }
    } catch (IOException e) {
      System.err.println("bench: " + o.jar() + " is not a complete appliance jar (is a build"
          + " writing it right now?): " + e.getMessage());
      System.exit(2);
    }
    Path work = null;
    int exit = 0;
    try {
      work = o.work() != null ? Files.createDirectories(o.work())
          : Files.createTempDirectory("pushgate-bench");
      run(new BenchRun(o, work));
    } catch (Exception e) {
      System.err.println("bench: failed: " + e);
      e.printStackTrace();
      exit = 1;
    } finally {
      if (work != null && !o.keep()) {
        Platform.deleteTree(work);
      } else if (work != null) {
        System.err.println("bench: scratch directory kept at " + work);
      }
    }
    if (exit != 0) {
      System.exit(exit);
    }
  }

  private static void run(BenchRun bench) throws Exception {
    Options o = bench.o;
    long started = System.nanoTime();
    Files.createDirectories(o.out());
    String head = bench.header();
    // a snapshot: other builds may replace the jar while the benchmark runs. Its time is kept: a
    // class-data archive (--appliance-jvm -XX:SharedArchiveFile) made for this path stays valid.
    bench.jar = Files.copy(o.jar(), bench.work.resolve("pushgate.jar"),
        StandardCopyOption.COPY_ATTRIBUTES);
    System.out.print(head);
    if (o.runs("startup")) {
      bench.section("startup", new StartupBench(bench)::run);
    }
    Set<String> main = new LinkedHashSet<>(o.only());
    main.remove("startup");
    main.remove("profile");
    if (!main.isEmpty()) {
      Path data = bench.work.resolve("data");
      bench.app = BenchRun.startAppliance(bench.jar, data, bench.jvmOptions(data));
      try {
        bench.setUp(bench.app, repositories(o));
        SmallPushBench small = new SmallPushBench(bench);
        if (o.runs("small")) {
          bench.section("small", small::measure);
        }
        if (o.runs("phases")) {
          bench.section("phases", new PhasesBench(bench)::run);
        }
        if (o.runs("large")) {
          bench.section("large", new LargePushBench(bench)::run);
        }
        if (o.runs("memory")) {
          bench.section("memory", new MemoryBench(bench)::run);
        }
        if (o.runs("deny")) {
          bench.section("deny", new DenyBench(bench)::run);
        }
        if (o.runs("concurrency")) {
          bench.section("concurrency", new ConcurrencyBench(bench)::run);
        }
        if (o.runs("small")) {
          bench.section("small, again", small::again);
          small.afterRestarts();
        }
      } finally {
        bench.app.close();
        BenchRun.copyQuietly(bench.app.log, o.out().resolve("appliance.log"));
      }
    }
    if (o.runs("profile")) {
      bench.section("profile", new ProfileBench(bench)::run);
    }
    bench.finish(started, head);
  }

  /** The repositories every section needs, created up front (forge create is setup). */
  private static List<String> repositories(Options o) {
    List<String> repos = new ArrayList<>(List.of("acme/widget", "acme/widget-d"));
    if (o.runs("large")) {
      for (int i = 0; i <= o.largeRuns(); i++) {
        repos.add("acme/big-d-" + i);
        repos.add("acme/big-g-" + i);
      }
    }
    if (o.runs("phases")) {
      repos.addAll(List.of("acme/ph-d-1", "acme/ph-g-1"));
    }
    if (o.runs("memory")) {
      repos.addAll(List.of("acme/mem-d", "acme/mem-g"));
      if (!o.quick()) {
        repos.addAll(List.of("acme/mem1g-d", "acme/mem1g-g"));
      }
    }
    if (o.runs("deny")) {
      repos.add("acme/deny-big");
    }
    if (o.runs("concurrency")) {
      for (int i = 0; i < ConcurrencyBench.maxLevel(o); i++) {
        repos.add("acme/r-" + i);
      }
    }
    return repos;
  }
}
