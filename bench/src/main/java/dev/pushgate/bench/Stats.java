package dev.pushgate.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** A sample of measurements (milliseconds, megabytes, ...), sorted once. */
record Stats(List<Double> sorted) {
  Stats {
    List<Double> copy = new ArrayList<>(sorted);
    Collections.sort(copy);
    sorted = List.copyOf(copy);
  }

  static Stats of(List<Double> values) {
    return new Stats(values);
  }

  static Stats ofNanosAsMillis(List<Long> nanos) {
    return new Stats(nanos.stream().map(n -> n / 1e6).toList());
  }

  int count() {
    return sorted.size();
  }

  boolean isEmpty() {
    return sorted.isEmpty();
  }

  double min() {
    return sorted.isEmpty() ? Double.NaN : sorted.get(0);
  }

  double max() {
    return sorted.isEmpty() ? Double.NaN : sorted.get(sorted.size() - 1);
  }

  double median() {
    int n = sorted.size();
    if (n == 0) {
      return Double.NaN;
    }
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  /** Nearest-rank percentile, {@code p} in (0, 100]. */
  double percentile(double p) {
    int n = sorted.size();
    if (n == 0) {
      return Double.NaN;
    }
    int rank = (int) Math.ceil(p / 100.0 * n);
    return sorted.get(Math.max(0, Math.min(n - 1, rank - 1)));
  }

  double sum() {
    return sorted.stream().mapToDouble(Double::doubleValue).sum();
  }

  /** {@code median [min–max]} with the given number of decimals. */
  String summary(int decimals) {
    if (sorted.isEmpty()) {
      return "n/a";
    }
    return fmt(median(), decimals) + " [" + fmt(min(), decimals) + "–" + fmt(max(), decimals) + "]";
  }

  static String fmt(double v, int decimals) {
    if (Double.isNaN(v)) {
      return "n/a";
    }
    return String.format(java.util.Locale.ROOT, "%." + decimals + "f", v);
  }
}
