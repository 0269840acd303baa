package dev.pushgate.appliance;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code /metrics} of a fresh appliance: what an operator can alert on before anything happens. */
class MetricsTest {
  private static final Pattern BUCKET = Pattern.compile("^(\\w+)_bucket\\{", Pattern.MULTILINE);

  @TempDir Path tmp;

  @Test
  void aFreshApplianceServesItsCountersAtZeroBuildInfoAndTheJvms() throws Exception {
    try (TestAppliance a = TestAppliance.start(tmp.resolve("data"), null)) {
      HttpResponse<String> r = a.get("/metrics");
      assertThat(r.statusCode()).isEqualTo(200);
      String m = r.body();

      assertThat(m).containsPattern("(?m)^pushgate_build_info\\{version=\"[^\"]+\"\\} 1$");
      assertThat(m).contains(
          "pushgate_push_decisions_total{code=\"RULE_DENIED\",decision=\"denied\",kind=\"update\"} 0.0\n",
          "pushgate_push_decisions_total{code=\"none\",decision=\"allowed\",kind=\"create\"} 0.0\n",
          "pushgate_hook_decisions_total{decision=\"deny\"} 0.0\n",
          "pushgate_hook_decisions_total{decision=\"allow\"} 0.0\n",
          "pushgate_token_mints_total{kind=\"write\",outcome=\"ok\"} 0.0\n",
          "pushgate_token_mints_total{kind=\"read\",outcome=\"failed\"} 0.0\n",
          "pushgate_token_revocations_total{outcome=\"ok\"} 0.0\n",
          "pushgate_write_token_mints_total{outcome=\"rate-limited\"} 0.0\n",
          "pushgate_github_requests_total{route=\"issue-token\",status=\"5xx\"} 0.0\n",
          "pushgate_github_requests_total{route=\"revoke\",status=\"network\"} 0.0\n",
          "pushgate_git_requests_shed_total{door=\"fetch\",limit=\"gateway\"} 0.0\n",
          "pushgate_git_requests_shed_total{door=\"push\",limit=\"repository\"} 0.0\n",
          "pushgate_git_requests_admitted 0.0\n");
      assertThat(m).contains("jvm_memory_used_bytes{", "jvm_threads_live_threads ",
          "jvm_classes_loaded_classes ", "jvm_gc_", "process_uptime_seconds ",
          "process_cpu_usage ", "process_files_open_files ", "system_cpu_count ");

      Map<String, Long> buckets = bucketSeries(m);
      assertThat(buckets).containsKeys("pushgate_forward_seconds", "pushgate_cache_sync_seconds");
      assertThat(buckets.get("pushgate_forward_seconds")).as("15 bounds and +Inf").isEqualTo(16);
      assertThat(buckets.values()).allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(16));
    }
  }

  /** How many {@code _bucket} series each histogram has. */
  private static Map<String, Long> bucketSeries(String scrape) {
    Matcher matcher = BUCKET.matcher(scrape);
    return matcher.results().map(r -> r.group(1))
        .collect(Collectors.groupingBy(n -> n, Collectors.counting()));
  }
}
