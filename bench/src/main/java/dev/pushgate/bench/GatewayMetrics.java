package dev.pushgate.bench;

import dev.pushgate.testkit.RunningAppliance;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.Map;

/**
 * The gateway's own timers, read from the appliance's Prometheus endpoint ({@code GET
 * /metrics}): count and sum of cache syncs and of forwards (write-token mint included). Two
 * scrapes give the mean over what happened between them.
 */
record GatewayMetrics(Map<String, Double> values) {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().proxy(HttpClient.Builder.NO_PROXY).build();

  /** An empty scrape where the appliance has no {@code /metrics} (older builds). */
  static GatewayMetrics scrape(RunningAppliance app) {
    Map<String, Double> v = new HashMap<>();
    try {
      HttpResponse<String> r = HTTP.send(
          HttpRequest.newBuilder(URI.create(app.base() + "/metrics")).build(),
          HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() == 200) {
        for (String line : r.body().split("\n")) {
          if (line.startsWith("#") || line.contains("{")) {
            continue;
          }
          String[] f = line.trim().split("\\s+");
          if (f.length == 2) {
            try {
              v.put(f[0], Double.parseDouble(f[1]));
            } catch (NumberFormatException ignored) {
              // not a sample
            }
          }
        }
      }
    } catch (IOException e) {
      // no metrics
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return new GatewayMetrics(Map.copyOf(v));
  }

  boolean present() {
    return values.containsKey("pushgate_forward_seconds_count");
  }

  /** Mean milliseconds of a timer between {@code before} and this scrape, and the count. */
  double[] meanMillisSince(GatewayMetrics before, String timer) {
    double n = values.getOrDefault(timer + "_seconds_count", 0.0)
        - before.values.getOrDefault(timer + "_seconds_count", 0.0);
    double sum = values.getOrDefault(timer + "_seconds_sum", 0.0)
        - before.values.getOrDefault(timer + "_seconds_sum", 0.0);
    return new double[] {n <= 0 ? Double.NaN : sum / n * 1000, n};
  }
}
