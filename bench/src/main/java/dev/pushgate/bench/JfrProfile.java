package dev.pushgate.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * Aggregates a JFR recording of the appliance over time windows (one per workload): CPU samples
 * ({@code jdk.ExecutionSample}) by component and by method, allocation samples, GC pauses and
 * JIT compilation time. The same data {@code jfr print --events jdk.ExecutionSample} shows, read
 * through {@code jdk.jfr.consumer}.
 */
final class JfrProfile {
  /** A named stretch of time whose events are aggregated together. */
  record Window(String name, Instant start, Instant end, int pushes) {
    boolean contains(Instant t) {
      return !t.isBefore(start) && !t.isAfter(end);
    }
  }

  /** A component of the appliance, recognised by a frame anywhere on the stack. */
  private record Component(String label, Predicate<String> frame) {}

  // First match wins, so the more specific components come first: the local forge runs in the
  // same JVM as the gateway and is the upstream of both the direct and the gateway push.
  private static final List<Component> COMPONENTS = List.of(
      new Component("forge: token API (upstream stand-in)",
          f -> f.startsWith("dev.pushgate.forge.ForgeApiServlet")),
      new Component("forge: git endpoint (upstream stand-in)",
          f -> f.startsWith("dev.pushgate.forge.")),
      new Component("gateway: forward upstream (JGit push client)",
          f -> f.startsWith("dev.pushgate.gateway.Forwarder.")),
      new Component("gateway: cache sync (JGit fetch from upstream)",
          f -> f.startsWith("dev.pushgate.gateway.UpstreamCache.sync")),
      new Component("gateway: write-token mint and revoke (broker client)",
          f -> f.startsWith("dev.pushgate.broker.")
              || f.startsWith("dev.pushgate.appliance.runs.Runs.mintWriteToken")
              || f.startsWith("dev.pushgate.appliance.runs.RunUpstream.mintWriteToken")),
      new Component("gateway: audit log (SQLite)",
          f -> f.startsWith("dev.pushgate.appliance.store.AuditStore")),
      new Component("gateway: pre-receive hook (judge, other)",
          f -> f.startsWith("dev.pushgate.gateway.PushHook.")),
      new Component("gateway: run authentication, ledger, sweeper",
          f -> f.startsWith("dev.pushgate.appliance.runs.")
              || f.startsWith("dev.pushgate.appliance.store.")),
      new Component("gateway: receive-pack into the cache (JGit: parse, index, check)",
          f -> f.startsWith("org.eclipse.jgit.transport.")),
      new Component("gateway: filter, other",
          f -> f.startsWith("dev.pushgate.gateway.")),
      new Component("control API", f -> f.startsWith("dev.pushgate.appliance.control.")),
      new Component("JGit auto-gc (background repack of forge repositories)",
          f -> f.startsWith("org.eclipse.jgit.internal.storage.file.GC.")),
      new Component("Jetty / JDK only (no pushgate or JGit frame)", f -> true));

  /**
   * The phases of a push (issue 33), each recognised by its frames. The forge (the upstream
   * stand-in, in the same process), the advertisement's sync (whose fetch parses a pack too) and
   * the cache's compaction own every sample with one of their frames anywhere on the stack. Otherwise a sample belongs to
   * the phase whose frame is nearest the top of its stack, the innermost: the audit's database
   * write made from the push hook is the audit's, not the judgement's.
   */
  private static final List<Component> WHOLE_STACK_PHASES = List.of(
      new Component("forge (the upstream stand-in)", f -> f.startsWith("dev.pushgate.forge.")),
      new Component("advertisement sync",
          f -> f.startsWith("dev.pushgate.gateway.UpstreamCache.sync")
          || f.startsWith("dev.pushgate.gateway.UpstreamCache.awaitFetch")
          || f.startsWith("dev.pushgate.gateway.UpstreamFetch.")
          || f.startsWith("dev.pushgate.gateway.UpstreamRefList.")
          || f.startsWith("dev.pushgate.gateway.UpstreamAdvertisement.")),
      // the cache's repack once a push leaves it crowded: in the background, but per push
      new Component("cache compaction (background repack)",
          f -> f.startsWith("dev.pushgate.gateway.UpstreamCache.compact")));
  private static final List<Component> INNERMOST_PHASES = List.of(
      new Component("receive into the cache",
          f -> f.startsWith("dev.pushgate.gateway.CachePackParser.")
          || f.startsWith("dev.pushgate.gateway.PackReachCheck.")
          || f.startsWith("dev.pushgate.gateway.PackHeaderGuard.")
          || f.startsWith("org.eclipse.jgit.transport.ReceivePack.receivePackAndCheckConnectivity")
          || f.startsWith("org.eclipse.jgit.transport.PackParser.")),
      new Component("judgement and content rules",
          f -> f.startsWith("dev.pushgate.gateway.ContentJudge")
          || f.startsWith("dev.pushgate.gateway.SecretScanner")
          || f.startsWith("dev.pushgate.gateway.Verdict")
          || f.startsWith("dev.pushgate.gateway.JudgedCommands")
          || f.startsWith("dev.pushgate.gateway.UpdateCommands")
          || f.startsWith("dev.pushgate.gateway.WorkflowRule")
          || f.startsWith("dev.pushgate.policy.")),
      new Component("audit chain and database", f -> f.startsWith("dev.pushgate.appliance.store.")
          || f.startsWith("org.sqlite.") || f.startsWith("org.postgresql.")),
      new Component("mint and revoke", f -> f.startsWith("dev.pushgate.broker.")
          || f.contains(".mintWriteToken") || f.startsWith("dev.pushgate.gateway.WriteTokenLease")
          || f.startsWith("dev.pushgate.gateway.Push.revokeWriteTokens")),
      new Component("forward", f -> f.startsWith("dev.pushgate.gateway.Forwarder.")
          || f.startsWith("dev.pushgate.gateway.StreamedForward")));
  private static final String OTHER_GATEWAY =
      "authentication, admission, filter, hook (gateway code in no phase above)";
  private static final String OUTSIDE = "HTTP and git protocol outside these (Jetty, JGit, JDK)";

  /** The period of the CPU samples ({@code jdk.ExecutionSample}) the bench records. */
  static final int SAMPLE_PERIOD_MS = 2;

  private static final class Acc {
    long samples;
    final Map<String, Long> byPhase = new LinkedHashMap<>();
    final Map<String, Long> byComponent = new LinkedHashMap<>();
    final Map<String, Long> byThread = new LinkedHashMap<>();
    final Map<String, Long> self = new HashMap<>();
    final Map<String, Long> inclusive = new HashMap<>();
    final Map<String, Long> allocByComponent = new LinkedHashMap<>();
    final Map<String, Long> allocBySite = new HashMap<>();
    long nativeSamples;
    final Map<String, long[]> blocked = new HashMap<>();
    final Map<String, Long> nativeByComponent = new HashMap<>();
    long allocBytes;
    long gcCount;
    Duration gcPauses = Duration.ZERO;
    Duration compilation = Duration.ZERO;
  }

  /** Frames on nearly every stack of a push, which say nothing about where the time goes. */
  private static final Set<String> BORING = Set.of(
      "org.eclipse.jgit.transport.ReceivePack.service",
      "org.eclipse.jgit.transport.ReceivePack.receive",
      "dev.pushgate.forge.ForgeGitFilter.doFilter");

  private JfrProfile() {}

  static String analyze(Path recording, List<Window> windows) throws IOException {
    Map<Window, Acc> accs = new LinkedHashMap<>();
    windows.forEach(w -> accs.put(w, new Acc()));
    try (RecordingFile rf = new RecordingFile(recording)) {
      while (rf.hasMoreEvents()) {
        RecordedEvent e = rf.readEvent();
        String type = e.getEventType().getName();
        for (Map.Entry<Window, Acc> en : accs.entrySet()) {
          if (!en.getKey().contains(e.getStartTime())) {
            continue;
          }
          Acc a = en.getValue();
          switch (type) {
            case "jdk.ExecutionSample" -> sample(a, e);
            case "jdk.ObjectAllocationSample" -> allocation(a, e);
            case "jdk.NativeMethodSample" -> nativeSample(a, e);
            case "jdk.SocketRead", "jdk.FileForce", "jdk.JavaMonitorEnter", "jdk.ThreadPark" ->
                blocked(a, e, type);
            case "jdk.GarbageCollection" -> {
              a.gcCount++;
              a.gcPauses = a.gcPauses.plus(e.getDuration("sumOfPauses"));
            }
            case "jdk.Compilation" -> a.compilation = a.compilation.plus(e.getDuration());
            default -> { }
          }
        }
      }
    }
    StringBuilder out = new StringBuilder();
    for (Map.Entry<Window, Acc> en : accs.entrySet()) {
      render(out, en.getKey(), en.getValue());
    }
    return out.toString();
  }

  private static List<String> frames(RecordedStackTrace st) {
    List<String> names = new ArrayList<>();
    if (st == null) {
      return names;
    }
    for (RecordedFrame f : st.getFrames()) {
      if (f.getMethod() != null && f.getMethod().getType() != null) {
        names.add(f.getMethod().getType().getName() + "." + f.getMethod().getName());
      }
    }
    return names;
  }

  private static String componentOf(List<String> frames) {
    for (Component c : COMPONENTS) {
      for (String f : frames) {
        if (c.frame().test(f)) {
          return c.label();
        }
      }
    }
    return "unknown";
  }

  /** The phase of a sample whose stack is {@code frames}, top first. */
  private static String phaseOf(List<String> frames) {
    for (Component p : WHOLE_STACK_PHASES) {
      if (frames.stream().anyMatch(p.frame())) {
        return p.label();
      }
    }
    for (String f : frames) {
      for (Component p : INNERMOST_PHASES) {
        if (p.frame().test(f)) {
          return p.label();
        }
      }
    }
    return frames.stream().anyMatch(f -> f.startsWith("dev.pushgate.gateway.")
        || f.startsWith("dev.pushgate.appliance.runs.")) ? OTHER_GATEWAY : OUTSIDE;
  }

  private static void sample(Acc a, RecordedEvent e) {
    List<String> frames = frames(e.getStackTrace());
    if (frames.isEmpty()) {
      return;
    }
    a.samples++;
    a.byComponent.merge(componentOf(frames), 1L, Long::sum);
    a.byPhase.merge(phaseOf(frames), 1L, Long::sum);
    a.byThread.merge(threadKind(e), 1L, Long::sum);
    a.self.merge(frames.get(0), 1L, Long::sum);
    Set<String> seen = new HashSet<>();
    for (String f : frames) {
      if ((f.startsWith("dev.pushgate.") || f.startsWith("org.eclipse.jgit."))
          && !BORING.contains(f) && !f.startsWith("org.eclipse.jgit.http.server.")
          && seen.add(f)) {
        a.inclusive.merge(f, 1L, Long::sum);
      }
    }
  }

  /** The sampled thread's name with its numbers taken out: "pushgate-http-12" is "pushgate-http-N". */
  private static String threadKind(RecordedEvent e) {
    jdk.jfr.consumer.RecordedThread t = e.getThread("sampledThread");
    String name = t == null ? null : t.getJavaName();
    return name == null ? "?" : name.replaceAll("[0-9]+", "N");
  }

  /** Time a thread at work for pushgate or JGit spent blocked: on a socket, fsync, a lock. */
  private static void blocked(Acc a, RecordedEvent e, String type) {
    List<String> frames = frames(e.getStackTrace());
    if (frames.stream().noneMatch(f -> f.startsWith("dev.pushgate.")
        || f.startsWith("org.eclipse.jgit."))) {
      return;
    }
    String what = switch (type) {
      case "jdk.SocketRead" -> "socket read ← " + caller(frames);
      case "jdk.FileForce" -> "fsync ← " + caller(frames);
      case "jdk.JavaMonitorEnter" -> "monitor ← " + caller(frames);
      default -> "park ← " + caller(frames);
    };
    long[] v = a.blocked.computeIfAbsent(componentOf(frames) + " | " + what, k -> new long[2]);
    v[0]++;
    v[1] += e.getDuration().toNanos();
  }

  /** The first pushgate, JGit, OkHttp or JDK HTTP frame: what the blocking call was for. */
  private static String caller(List<String> frames) {
    for (String f : frames) {
      if (f.startsWith("org.eclipse.jgit.") || f.startsWith("dev.pushgate.")
          || f.startsWith("okhttp3.") || f.startsWith("sun.net.www.")
          || f.startsWith("org.sqlite.")) {
        return "`" + f.substring(f.lastIndexOf('.', f.lastIndexOf('.') - 1) + 1) + "`";
      }
    }
    return "`" + frames.get(0) + "`";
  }

  /**
   * JFR settings for the bench: the JDK's {@code profile.jfc} with lower thresholds, so that the
   * short waits of a small push are recorded: socket reads, lock waits and parks from 1 ms, every
   * fsync, CPU samples every {@link #SAMPLE_PERIOD_MS} ms and native-method samples every 10 ms.
   */
  static Path settings(Path dir) throws IOException {
    Path profile = Path.of(System.getProperty("java.home"), "lib", "jfr", "profile.jfc");
    String jfc = java.nio.file.Files.readString(profile);
    // a small push is a few tens of ms of CPU: at the profile's 10 ms, 15 pushes left 13 samples
    jfc = jfc.replaceFirst("(<event name=\"jdk.ExecutionSample\">[\\s\\S]*?<setting name=\"period\"[^>]*>)"
        + "[^<]*(</setting>)", "$1" + SAMPLE_PERIOD_MS + " ms$2");
    jfc = threshold(jfc, "jdk.SocketRead", "1 ms");
    jfc = threshold(jfc, "jdk.FileForce", "0 ms");
    jfc = threshold(jfc, "jdk.JavaMonitorEnter", "1 ms");
    jfc = threshold(jfc, "jdk.ThreadPark", "1 ms");
    jfc = jfc.replaceFirst("(<event name=\"jdk.NativeMethodSample\">[\\s\\S]*?<setting name=\"period\"[^>]*>)"
        + "[^<]*(</setting>)", "$110 ms$2");
    Path out = dir.resolve("bench.jfc");
    java.nio.file.Files.writeString(out, jfc);
    return out;
  }

  private static String threshold(String jfc, String event, String value) {
    return jfc.replaceFirst("(<event name=\"" + java.util.regex.Pattern.quote(event)
        + "\">[\\s\\S]*?<setting name=\"threshold\"[^>]*>)[^<]*(</setting>)", "$1" + value + "$2");
  }

  /**
   * A thread in native code: blocked on a socket, in SQLite (JNI), in a file operation. Only
   * threads at work for pushgate or JGit count; idle selectors and pool threads do not.
   */
  private static void nativeSample(Acc a, RecordedEvent e) {
    List<String> frames = frames(e.getStackTrace());
    if (frames.stream().noneMatch(f -> f.startsWith("dev.pushgate.")
        || f.startsWith("org.eclipse.jgit."))) {
      return;
    }
    a.nativeSamples++;
    a.nativeByComponent.merge(componentOf(frames) + " | `" + nativeFrame(frames) + "`", 1L,
        Long::sum);
  }

  /** The native method and the first Java frame below it that says what it is for. */
  private static String nativeFrame(List<String> frames) {
    String top = frames.get(0);
    for (String f : frames) {
      if (f.startsWith("org.sqlite.") || f.startsWith("org.eclipse.jgit.")
          || f.startsWith("dev.pushgate.") || f.startsWith("okhttp3.")
          || f.startsWith("sun.net.www.")) {
        return top.substring(top.lastIndexOf('.', top.lastIndexOf('.') - 1) + 1) + " ← "
            + f.substring(f.lastIndexOf('.', f.lastIndexOf('.') - 1) + 1);
      }
    }
    return top;
  }

  private static void allocation(Acc a, RecordedEvent e) {
    List<String> frames = frames(e.getStackTrace());
    long weight = e.getLong("weight");
    a.allocBytes += weight;
    a.allocByComponent.merge(componentOf(frames), weight, Long::sum);
    String site = frames.stream()
        .filter(f -> f.startsWith("dev.pushgate.") || f.startsWith("org.eclipse.jgit."))
        .findFirst().orElse(frames.isEmpty() ? "?" : frames.get(0));
    a.allocBySite.merge(site, weight, Long::sum);
  }

  private static void render(StringBuilder out, Window w, Acc a) {
    double secs = Duration.between(w.start(), w.end()).toMillis() / 1000.0;
    out.append("#### ").append(w.name()).append("\n\n");
    out.append(String.format(Locale.ROOT,
        "%d pushes in %.1f s; %d CPU samples (Java code only; about 1 per " + SAMPLE_PERIOD_MS
            + " ms per running"
            + " thread), GC: %d collections, %.0f ms of pauses; JIT compilation: %.0f ms;"
            + " allocation: %.0f MiB (sampled estimate)%n%n",
        w.pushes(), secs, a.samples, a.gcCount, a.gcPauses.toNanos() / 1e6,
        a.compilation.toNanos() / 1e6, a.allocBytes / 1048576.0));
    out.append("| component (first match on the stack) | CPU samples | share | allocated MiB |\n");
    out.append("|---|---:|---:|---:|\n");
    a.byComponent.entrySet().stream()
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .forEach(en -> out.append(String.format(Locale.ROOT, "| %s | %d | %.1f%% | %.0f |%n",
            en.getKey(), en.getValue(), 100.0 * en.getValue() / Math.max(1, a.samples),
            a.allocByComponent.getOrDefault(en.getKey(), 0L) / 1048576.0)));
    out.append("\nBy phase (the innermost phase on the stack; CPU ms per push estimated at "
        + SAMPLE_PERIOD_MS + " ms per sample):\n\n");
    out.append("| phase | CPU samples | share | ≈ CPU ms per push |\n|---|---:|---:|---:|\n");
    top(a.byPhase, 10).forEach(en -> out.append(String.format(Locale.ROOT,
        "| %s | %d | %.1f%% | %.1f |%n", en.getKey(), en.getValue(),
        100.0 * en.getValue() / Math.max(1, a.samples),
        (double) SAMPLE_PERIOD_MS * en.getValue() / Math.max(1, w.pushes()))));
    out.append("\nBy thread (CPU samples of Java code per kind of thread):\n\n");
    out.append("| thread | CPU samples | share | ≈ CPU ms per push |\n|---|---:|---:|---:|\n");
    top(a.byThread, 10).forEach(en -> out.append(String.format(Locale.ROOT,
        "| `%s` | %d | %.1f%% | %.1f |%n", en.getKey(), en.getValue(),
        100.0 * en.getValue() / Math.max(1, a.samples),
        (double) SAMPLE_PERIOD_MS * en.getValue() / Math.max(1, w.pushes()))));
    out.append("\nTop methods, self time (the frame on top of the stack):\n\n");
    out.append("| method | samples | share |\n|---|---:|---:|\n");
    top(a.self, 12).forEach(en -> out.append(String.format(Locale.ROOT, "| `%s` | %d | %.1f%% |%n",
        en.getKey(), en.getValue(), 100.0 * en.getValue() / Math.max(1, a.samples))));
    out.append("\nTop pushgate and JGit methods, inclusive (on the stack anywhere):\n\n");
    out.append("| method | samples | share |\n|---|---:|---:|\n");
    top(a.inclusive, 15).forEach(en -> out.append(String.format(Locale.ROOT,
        "| `%s` | %d | %.1f%% |%n",
        en.getKey(), en.getValue(), 100.0 * en.getValue() / Math.max(1, a.samples))));
    if (a.nativeSamples > 0) {
      out.append("\nThreads in native code while at work for pushgate or JGit (blocked on a"
          + " socket, in SQLite, on a file; `jdk.NativeMethodSample`, about 1 per 20 ms per"
          + " such thread), by component and native frame:\n\n");
      out.append("| component | native frame ← caller | samples | share |\n|---|---|---:|---:|\n");
      top(a.nativeByComponent, 12).forEach(en -> {
        String[] k = en.getKey().split(" \\| ", 2);
        out.append(String.format(Locale.ROOT, "| %s | %s | %d | %.1f%% |%n", k[0], k[1],
            en.getValue(), 100.0 * en.getValue() / a.nativeSamples));
      });
    }
    if (!a.blocked.isEmpty()) {
      out.append("\nBlocked time of threads at work for pushgate or JGit (JFR events: socket"
          + " reads and lock waits or parks of 1 ms and more, every fsync), per push:\n\n");
      out.append("| component | blocked in ← for | events | ms per push |\n|---|---|---:|---:|\n");
      a.blocked.entrySet().stream()
          .sorted((x, y) -> Long.compare(y.getValue()[1], x.getValue()[1]))
          .limit(12)
          .forEach(en -> {
            String[] k = en.getKey().split(" \\| ", 2);
            out.append(String.format(Locale.ROOT, "| %s | %s | %d | %.1f |%n", k[0], k[1],
                en.getValue()[0], en.getValue()[1] / 1e6 / Math.max(1, w.pushes())));
          });
    }
    out.append("\nTop allocation sites (first pushgate or JGit frame):\n\n");
    out.append("| site | MiB | share |\n|---|---:|---:|\n");
    top(a.allocBySite, 8).forEach(en -> out.append(String.format(Locale.ROOT,
        "| `%s` | %.0f | %.1f%% |%n", en.getKey(), en.getValue() / 1048576.0,
        100.0 * en.getValue() / Math.max(1, a.allocBytes))));
    out.append('\n');
  }

  private static List<Map.Entry<String, Long>> top(Map<String, Long> m, int n) {
    return m.entrySet().stream()
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .limit(n).toList();
  }
}
