package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pushgate.testkit.GitRun;
import dev.pushgate.testkit.RunningAppliance;
import dev.pushgate.testkit.Wait;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve --log-format json --log-level info}: a refused push's decision lines carry run,
 * repository, ref, decision and code as fields of their own, and no secret: not the run's
 * credentials, not a token-shaped string planted in a ref name.
 */
class StructuredLogTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PLANTED = "ghs_" + "Pl4nt3dT0k3nPl4nt3dT0k3nPl4nt3dT0k3n";

  @TempDir Path tmp;

  @Test
  void aRefusedPushIsLoggedWithItsFieldsAndNoSecret() throws Exception {
    try (RunningAppliance app = RunningAppliance.start(tmp.resolve("data"),
        "--log-format", "json", "--log-level", "info")) {
      app.forgeCreate("acme/widget");
      JsonNode run = app.createRun("""
          {"workspaceId": "ws-log", "mode": "chat", "repository": "acme/widget",
           "rules": {"push": [{"refs": "refs/heads/**", "decision": "deny"}]}}""");
      String runId = run.get("runId").asText();
      GitRun git = new GitRun(Files.createDirectories(tmp.resolve("home")), ForgeRefs.env(run));
      git.in(tmp, "clone", "-q", "https://github.com/acme/widget.git", "w").ok();
      Path work = tmp.resolve("w");
      git.in(work, "commit", "-q", "--allow-empty", "-m", "refused").ok();
      git.in(work, "push", "origin", "HEAD:main", "HEAD:leak-" + PLANTED).failed();

      List<JsonNode> denials = Wait.forValue(Duration.ofSeconds(20), "two denials logged",
          () -> decisionLines(app, runId), l -> l.size() == 2);
      JsonNode main = denials.stream()
          .filter(l -> l.get("ref").asText().equals("refs/heads/main")).findFirst().orElseThrow();
      assertThat(main.get("repository").asText()).isEqualTo("acme/widget");
      assertThat(main.get("decision").asText()).isEqualTo("deny");
      assertThat(main.get("code").asText()).isEqualTo("RULE_DENIED");
      assertThat(main.get("level").asText()).isEqualTo("INFO");
      assertThat(denials).anySatisfy(l ->
          assertThat(l.get("ref").asText()).isEqualTo("refs/heads/leak-[REDACTED]"));

      String log = app.logText();
      assertThat(log).doesNotContain(PLANTED).doesNotContain(ForgeRefs.credential(run))
          .doesNotContain(run.get("env").get("GH_TOKEN").asText());

      // the counters registered at zero moved; the jar names its version
      String m = Wire.tcp(app.port(), "GET", "/metrics", null, null, null).body();
      assertThat(m).containsPattern("pushgate_push_decisions_total\\{code=\"RULE_DENIED\","
          + "decision=\"denied\",kind=\"[a-z-]+\"\\} [1-9]");
      assertThat(m).containsPattern(
          "pushgate_token_mints_total\\{kind=\"read\",outcome=\"ok\"\\} [1-9]");
      assertThat(m).containsPattern(
          "pushgate_github_requests_total\\{route=\"issue-token\",status=\"2xx\"\\} [1-9]");
      assertThat(m).contains("pushgate_build_info{version=\"0.1.0-SNAPSHOT\"} 1");
      assertThat(m).doesNotContain(runId).doesNotContain(PLANTED);
    }
  }

  private static List<JsonNode> decisionLines(RunningAppliance app, String runId)
      throws Exception {
    return app.logText().lines().filter(l -> l.startsWith("{")).map(l -> {
      try {
        return JSON.readTree(l);
      } catch (Exception e) {
        throw new IllegalStateException(l, e);
      }
    }).filter(n -> runId.equals(n.path("run").asText()) && n.has("decision")).toList();
  }
}
