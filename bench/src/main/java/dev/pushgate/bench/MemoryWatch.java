package dev.pushgate.bench;

import dev.pushgate.testkit.RunningAppliance;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Watches the appliance's memory while something runs: peak RSS from {@code VmHWM} (reset
 * through {@code clear_refs} when the watch starts), heap used and committed from {@code jstat
 * -gc PID 100} (one attached sampler, not a JVM per sample), and the heap left after each GC from
 * the appliance's GC log ({@code -Xlog:gc}).
 */
final class MemoryWatch implements AutoCloseable {
  /** What the watch saw, in MiB. */
  record Peak(double rssMb, double heapUsedMb, double heapCommittedMb, double liveAfterGcMb,
      int gcs, boolean rssReset) {}

  private static final Pattern GC_LINE =
      Pattern.compile("GC\\(\\d+\\) Pause.*? (\\d+)M->(\\d+)M\\((\\d+)M\\)");

  private final RunningAppliance app;
  private final Path gcLog;
  private final long gcLogOffset;
  private final boolean rssReset;
  private final Process jstat;
  private final Thread reader;
  private volatile long maxUsedKb;
  private volatile long maxCommittedKb;
  private volatile long maxRssKb;

  private MemoryWatch(RunningAppliance app, Path gcLog) throws IOException {
    this.app = app;
    this.gcLog = gcLog;
    this.gcLogOffset = gcLog != null && Files.exists(gcLog) ? Files.size(gcLog) : 0;
    this.rssReset = ApplianceProbe.resetPeakRss(app);
    this.maxRssKb = ApplianceProbe.statusKb(app, "VmRSS");
    this.jstat = new ProcessBuilder("jstat", "-gc", String.valueOf(app.pid()), "100")
        .redirectErrorStream(true).start();
    this.reader = new Thread(this::read, "jstat-reader");
    reader.setDaemon(true);
    reader.start();
  }

  static MemoryWatch start(RunningAppliance app, Path gcLog) throws IOException {
    return new MemoryWatch(app, gcLog);
  }

  private void read() {
    try (BufferedReader r = new BufferedReader(
        new InputStreamReader(jstat.getInputStream(), StandardCharsets.UTF_8))) {
      List<String> header = null;
      String line;
      while ((line = r.readLine()) != null) {
        String[] f = line.strip().split("\\s+");
        if (f.length > 0 && f[0].equals("S0C")) {
          header = List.of(f);
          continue;
        }
        if (header == null || f.length != header.size()) {
          continue;
        }
        try {
          double used = col(header, f, "S0U") + col(header, f, "S1U") + col(header, f, "EU")
              + col(header, f, "OU");
          double committed = col(header, f, "S0C") + col(header, f, "S1C") + col(header, f, "EC")
              + col(header, f, "OC");
          maxUsedKb = Math.max(maxUsedKb, (long) used);
          maxCommittedKb = Math.max(maxCommittedKb, (long) committed);
          maxRssKb = Math.max(maxRssKb, ApplianceProbe.statusKb(app, "VmRSS"));
        } catch (NumberFormatException e) {
          // a partial line
        }
      }
    } catch (IOException ignored) {
      // jstat ended
    }
  }

  private static double col(List<String> header, String[] f, String name) {
    int i = header.indexOf(name);
    return i < 0 ? 0 : Double.parseDouble(f[i]);
  }

  Peak stop() throws Exception {
    // one last sample of the heap, so a short push is not missed between two jstat lines
    long[] heap = ApplianceProbe.heapInfoKb(app);
    maxUsedKb = Math.max(maxUsedKb, heap[0]);
    maxCommittedKb = Math.max(maxCommittedKb, heap[1]);
    jstat.destroy();
    jstat.waitFor();
    reader.join(2000);
    long hwm = ApplianceProbe.statusKb(app, "VmHWM");
    double liveAfterGc = 0;
    int gcs = 0;
    if (gcLog != null && Files.exists(gcLog)) {
      byte[] all = Files.readAllBytes(gcLog);
      String tail = new String(all, (int) Math.min(gcLogOffset, all.length),
          (int) Math.max(0, all.length - gcLogOffset), StandardCharsets.UTF_8);
      Matcher m = GC_LINE.matcher(tail);
      while (m.find()) {
        gcs++;
        liveAfterGc = Math.max(liveAfterGc, Double.parseDouble(m.group(2)));
      }
    }
    long rss = rssReset ? Math.max(hwm, maxRssKb) : maxRssKb;
    return new Peak(rss / 1024.0, maxUsedKb / 1024.0,
        maxCommittedKb / 1024.0, liveAfterGc, gcs, rssReset);
  }

  @Override
  public void close() {
    jstat.destroyForcibly();
  }
}
