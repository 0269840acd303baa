import com.sun.management.ThreadMXBean;
import dev.pushgate.appliance.store.AuditChain;
import dev.pushgate.appliance.store.AuditSink;
import dev.pushgate.appliance.store.AuditStore;
import dev.pushgate.appliance.store.Database;
import dev.pushgate.types.AuditEntry;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;

/**
 * What one audit append costs the appliance on SQLite: an API call's record (as the boundary
 * writes one before each call goes upstream), appended one at a time by one thread into a fresh
 * database in a temporary directory, with the appliance's own chain, store and checkpointer.
 * Prints wall time and the appending thread's CPU per append for each round, and the median of
 * the later half of the rounds (the earlier ones warm the JIT). Run by bench/audit-append/run
 * against the appliance's jar; see docs/benchmarks.md.
 */
public final class AuditAppendBench {
  public static void main(String[] args) throws Exception {
    int appends = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 8;
    Path dir = Files.createTempDirectory("pushgate-audit-append");
    ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    double[] wall = new double[rounds];
    double[] cpu = new double[rounds];
    try (Database db = Database.open(dir.resolve("pushgate.db"))) {
      AuditStore audit = new AuditStore(new AuditChain(db, "bench", AuditSink.NONE));
      for (int round = 0; round < rounds; round++) {
        long cpu0 = threads.getCurrentThreadCpuTime();
        long t0 = System.nanoTime();
        for (int i = 0; i < appends; i++) {
          audit.record(List.of(apiCall(i)));
        }
        wall[round] = (System.nanoTime() - t0) / 1e3 / appends;
        cpu[round] = (threads.getCurrentThreadCpuTime() - cpu0) / 1e3 / appends;
        System.out.printf("round %d: %.1f µs wall, %.1f µs CPU per append%n", round + 1,
            wall[round], cpu[round]);
      }
    } finally {
      try (var files = Files.walk(dir)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
    System.out.printf("median of rounds %d-%d: %.1f µs wall, %.1f µs CPU per append%n",
        rounds / 2 + 1, rounds, laterMedian(wall), laterMedian(cpu));
  }

  private static AuditEntry apiCall(int i) {
    return AuditEntry.builder(AuditEntry.Type.API_CALL).at(Instant.now()).runId("run-1")
        .workspaceId("ws-1").repository("acme/widget").ref("#" + i).kind("write-tracker")
        .decision(AuditEntry.Decision.ALLOWED).reason("writing to the tracker is allowed")
        .outcome(AuditEntry.Outcome.OK).durationMillis(0L)
        .subject("POST api.github.com/repos/acme/widget/issues/1/comments").build();
  }

  private static double laterMedian(double[] values) {
    double[] later = Arrays.copyOfRange(values, values.length / 2, values.length);
    Arrays.sort(later);
    int n = later.length;
    return n % 2 == 1 ? later[n / 2] : (later[n / 2 - 1] + later[n / 2]) / 2;
  }
}
