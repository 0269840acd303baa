package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pushgate.testkit.ControlClient;
import dev.pushgate.testkit.RunningAppliance;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example of {@code docs/launcher.md} is this test's: the documented request is sent as it
 * stands (its {@code /srv/agents} paths moved to a temporary directory), and the documented
 * answers have exactly the fields of the real ones. Each run writes the real answers, tokens and
 * paths redacted as in the document, to {@code target/launcher-example/}.
 */
class LauncherExampleTest {
  private static final Path DOC = Path.of("../docs/launcher.md");
  private static final String AGENTS = "/srv/agents";
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;

  @Test
  void theDocumentedRequestGetsTheDocumentedAnswersFieldForField() throws Exception {
    String doc = Files.readString(DOC);
    // Without the name-deny layer: the documented refused verdict is that of a host lacking it.
    try (RunningAppliance app =
        RunningAppliance.on(tmp.resolve("data")).withoutDenyLayer().start()) {
      app.forgeCreate("acme/widget");
      app.forgeCreate("acme/shared");
      Path agents = Files.createDirectories(tmp.resolve("agents")).toRealPath();
      Files.createDirectories(agents.resolve("a1/work"));
      Files.createDirectories(agents.resolve("a1/config"));
      Files.createDirectories(agents.resolve("repos"));
      Redactor redact = new Redactor(agents, app);

      String request = block(doc, "create-request").replace(AGENTS, agents.toString());
      ControlClient.Answer created = app.control().post("/v1/runs", request);
      assertThat(created.status()).as(created.raw()).isEqualTo(201);
      JsonNode run = created.body();
      save("create-response.json", redact.apply(run));
      String gitConfig =
          redact.apply(Files.readString(Path.of(run.get("gitConfigPath").asText())));
      saveText("gitconfig", gitConfig);
      JsonNode documented = JSON.readTree(block(doc, "create-response"));
      assertThat(fields(run)).isEqualTo(fields(documented));
      assertThat(fieldNames(run.get("env")))
          .containsExactlyInAnyOrderElementsOf(fieldNames(documented.get("env")));
      assertThat(fieldNames(run.get("sandbox").get("env")))
          .containsExactlyInAnyOrderElementsOf(fieldNames(documented.get("sandbox").get("env")))
          .doesNotContain("LD_PRELOAD");
      assertThat(run.get("sandbox").get("verdict").get("launch").asText()).isEqualTo("allowed");
      assertThat(run.get("sandbox").get("env").get("GIT_CONFIG_GLOBAL").asText())
          .isEqualTo(run.get("gitConfigPath").asText());

      if (run.get("sandbox").get("effectiveBackend").asText().equals("native")) {
        int recorded = Forge.recordedRuns(app);
        int liveTokens = Forge.liveForgeTokens(app);
        ControlClient.Answer refused = app.control().post("/v1/runs",
            request.replace("\"denyWriteGlobs\": []", "\"commit\": \"allow\""));
        // A plan that may not launch issues nothing: 422 with the plan, no run to delete.
        assertThat(refused.status()).as(refused.raw()).isEqualTo(422);
        assertThat(refused.body().get("error").asText()).isEqualTo("not launched: "
            + refused.body().get("sandbox").get("verdict").get("reason").asText());
        assertThat(refused.body().has("runId")).isFalse();
        assertThat(Forge.recordedRuns(app)).isEqualTo(recorded);
        assertThat(Forge.liveForgeTokens(app)).isEqualTo(liveTokens);
        ObjectNode verdictAndBackend = JSON.createObjectNode();
        verdictAndBackend.set("effectiveBackend", refused.body().get("sandbox")
            .get("effectiveBackend"));
        verdictAndBackend.set("verdict", refused.body().get("sandbox").get("verdict"));
        save("refused-verdict.json", verdictAndBackend);
        assertThat(verdictAndBackend).isEqualTo(JSON.readTree(block(doc, "refused-verdict")));
      }

      assertThat(gitConfig).isEqualTo(block(doc, "gitconfig", "ini") + "\n");

      String runId = run.get("runId").asText();
      ControlClient.Answer ended = app.control().delete("/v1/runs/" + runId);
      assertThat(ended.status()).isEqualTo(200);
      save("delete-response.json", redact.apply(ended.body()));
      ObjectNode expected = (ObjectNode) JSON.readTree(block(doc, "delete-response"));
      expected.put("runId", runId);
      assertThat(ended.body()).isEqualTo(expected);

      // The run held no GitHub token (its GH_TOKEN is a sentinel the forge refuses), and its one
      // credential is dead at the gateway once the run has ended.
      assertThat(Forge.fetchStatus(app, "acme/widget", run.get("env").get("GH_TOKEN").asText()))
          .isEqualTo(401);
      assertThat(Forge.gatewayStatus(app, "acme/widget",
          run.get("env").get("PUSHGATE_RUN_TOKEN").asText())).isEqualTo(401);
      assertThat(app.control().delete("/v1/runs/" + runId).status()).isEqualTo(200);
      JsonNode after = app.control().get("/v1/runs/" + runId).body();
      assertThat(after.get("state").asText()).isEqualTo("ended");
      assertThat(after.get("endReason").asText()).isEqualTo("torn down");
      assertThat(app.control().delete("/v1/runs/run_000000000000000000000000").status())
          .isEqualTo(404);
    }
  }

  /** The JSON block that follows {@code <!-- launcher-example: NAME -->} in the document. */
  private static String block(String doc, String name) {
    return block(doc, name, "json");
  }

  private static String block(String doc, String name, String language) {
    Matcher m = Pattern.compile("<!-- launcher-example: " + Pattern.quote(name)
        + " -->\\s*```" + language + "\\n(.*?)\\n```", Pattern.DOTALL).matcher(doc);
    assertThat(m.find()).as("docs/launcher.md has a launcher-example block " + name).isTrue();
    return m.group(1);
  }

  /** Every object field as a path; array elements share a path, scalars in arrays have none. */
  private static TreeSet<String> fields(JsonNode node) {
    TreeSet<String> out = new TreeSet<>();
    collect(node, "", out);
    return out;
  }

  private static void collect(JsonNode node, String path, TreeSet<String> out) {
    if (node.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        String p = path.isEmpty() ? e.getKey() : path + "." + e.getKey();
        out.add(p);
        collect(e.getValue(), p, out);
      }
    } else if (node.isArray()) {
      node.forEach(element -> collect(element, path + "[]", out));
    }
  }

  private static List<String> fieldNames(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }

  private static void save(String name, JsonNode json) throws Exception {
    saveText(name, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(json) + "\n");
  }

  private static void saveText(String name, String text) throws Exception {
    Path dir = Files.createDirectories(Path.of("target/launcher-example"));
    Files.writeString(dir.resolve(name), text);
  }

  /** Tokens cut to their prefix and the test's paths and port as the document spells them. */
  private static final class Redactor {
    private final List<String[]> replacements = new ArrayList<>();

    Redactor(Path agents, RunningAppliance app) {
      replacements.add(new String[] {agents.toString(), AGENTS});
      replacements.add(new String[] {app.dataDir.toString(), "/var/lib/pushgate"});
      replacements.add(new String[] {"127.0.0.1:" + app.port(), "127.0.0.1:7070"});
      replacements.add(new String[] {System.getProperty("user.home"), "/home/agent"});
    }

    JsonNode apply(JsonNode json) throws Exception {
      return JSON.readTree(apply(JSON.writeValueAsString(json)));
    }

    String apply(String text) {
      for (String[] r : replacements) {
        text = text.replace(r[0], r[1]);
      }
      return text.replaceAll("\\b(ghs|pgr)_[A-Za-z0-9_-]+", "$1_…")
          .replaceAll("pushgate-gateway-\\d+", "pushgate-gateway-1234");
    }
  }
}
