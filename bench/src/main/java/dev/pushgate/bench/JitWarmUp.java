package dev.pushgate.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Untimed warm-up rounds of one kind of push, direct and through the gateway, until the
 * appliance's JIT has settled: section 1 means to measure an appliance that has been up a while,
 * and after a fixed 400 rounds the JIT still compiled some 150 methods per 100 measured pushes on
 * a 2-core machine, its compiler threads competing with both paths for the cores
 * (docs/benchmarks.md, "The warm-up until the JIT settles"). The rounds run in blocks; after each
 * block the JIT's compilations in it are read ({@code sun.ci.totalCompiles}), and the warm-up
 * ends after the first block, past {@code min} rounds, that compiled fewer than
 * {@link #SETTLED_PER_100_PUSHES} per 100 pushes, or at {@code max} rounds. Each warm-up push is
 * timed too, so the report shows the ratio as the appliance warms. The forge repositories are
 * compacted after each block, as before the measured pushes: the bench turns the forge's own
 * housekeeping off, and a block's hundreds of packs would slow the cache's fetch from upstream
 * (the *upstream moved* kind) block after block, where GitHub keeps its repositories packed.
 */
final class JitWarmUp {
  /** Compilations per 100 pushes (both paths) under which a block counts as settled. */
  static final double SETTLED_PER_100_PUSHES = 25;

  /** Untimed work between two blocks. */
  @FunctionalInterface
  interface Step {
    void run() throws Exception;
  }

  /** One round of the kind: its direct and its gateway push's wall time, ms. */
  @FunctionalInterface
  interface Round {
    double[] run(int i) throws Exception;
  }

  /** A block of rounds: its last round's number, its medians, its compilations per 100 pushes. */
  record Block(int through, double directMs, double gatewayMs, double compiledPer100) {}

  private final List<Block> blocks = new ArrayList<>();
  private int rounds;

  /** The rounds run. */
  int rounds() {
    return rounds;
  }

  /** Whether the last block compiled fewer than the bound (false when the JIT was unreadable). */
  boolean settled() {
    return !blocks.isEmpty()
        && blocks.get(blocks.size() - 1).compiledPer100() < SETTLED_PER_100_PUSHES;
  }

  /**
   * Runs at least {@code min} and at most {@code max} rounds of {@code round}, in blocks of
   * {@code block}, {@code between} after each; stops at the first block past {@code min} that was
   * settled. With {@code min == max} that many rounds, the JIT read all the same.
   */
  static JitWarmUp run(BenchRun bench, int min, int max, int block, Step between, Round round)
      throws Exception {
    JitWarmUp w = new JitWarmUp();
    while (w.rounds < max) {
      int size = Math.min(block, max - w.rounds);
      long compiled0 = ApplianceProbe.jitCompilations(bench.app);
      List<Double> d = new ArrayList<>();
      List<Double> g = new ArrayList<>();
      for (int i = 0; i < size; i++) {
        double[] ms = round.run(w.rounds++);
        d.add(ms[0]);
        g.add(ms[1]);
      }
      long compiled1 = ApplianceProbe.jitCompilations(bench.app);
      between.run();
      double per100 = compiled0 < 0 || compiled1 < 0 ? Double.NaN
          : 100.0 * (compiled1 - compiled0) / (2 * size);
      w.blocks.add(new Block(w.rounds, Stats.of(d).median(), Stats.of(g).median(), per100));
      bench.step(String.format(Locale.ROOT, "  warm-up: %d rounds, the last %d: gateway / direct"
          + " %.2f×, %.0f JIT compilations per 100 pushes", w.rounds, size,
          Stats.of(g).median() / Stats.of(d).median(), per100));
      if (w.rounds >= min && per100 < SETTLED_PER_100_PUSHES) {
        break;
      }
    }
    return w;
  }

  /** The blocks as report rows: rounds, direct, gateway, ratio, compilations per 100 pushes. */
  List<List<String>> rows() {
    List<List<String>> out = new ArrayList<>();
    int from = 0;
    for (Block b : blocks) {
      out.add(List.of(from + 1 + "–" + b.through(), Stats.fmt(b.directMs(), 0),
          Stats.fmt(b.gatewayMs(), 0), BenchRun.fmtRatio(b.gatewayMs() / b.directMs()),
          Double.isNaN(b.compiledPer100()) ? "unknown"
              : String.format(Locale.ROOT, "%.0f", b.compiledPer100())));
      from = b.through();
    }
    return out;
  }

  static List<String> header() {
    return List.of("warm-up rounds", "direct, median (ms)", "gateway, median (ms)",
        "gateway / direct", "JIT compilations per 100 pushes");
  }
}
