package dev.pushgate.policy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Issue 30: what pushgate says to Claude Code, and what docs/claude-code.md says Claude Code
 * does, checked against the hook and settings types Claude Code ships, as
 * {@code @anthropic-ai/claude-agent-sdk} publishes them ({@code sdk.d.ts}; {@code .ci/run}
 * installs the pinned version into {@code target/claude-agent-sdk}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClaudeCodeHookContractTest {
  /** Where .ci/run installs the package; overridden by this system property. */
  static final String DIRECTORY_PROPERTY = "pushgate.claudeAgentSdk";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path DOC = Path.of("../docs/claude-code.md");

  private Path sdk;

  @BeforeAll
  void find() {
    String given = System.getProperty(DIRECTORY_PROPERTY);
    sdk = (given == null || given.isBlank() ? Path.of("target", "claude-agent-sdk") : Path.of(given))
        .resolve("node_modules/@anthropic-ai/claude-agent-sdk");
    Assumptions.assumeTrue(Files.isRegularFile(sdk.resolve("sdk.d.ts")),
        "@anthropic-ai/claude-agent-sdk is not installed (see .ci/run)");
  }

  /** sdk.d.ts, with the line ends the package ships (CRLF) made LF. */
  private String sdkTypes() throws Exception {
    return Files.readString(sdk.resolve("sdk.d.ts")).replace("\r\n", "\n");
  }

  /**
   * The fields of {@code export declare type NAME = { … };} in sdk.d.ts, each with its type as
   * written: the block's lines indented one level, comments left out.
   */
  private Map<String, String> fields(String type) throws Exception {
    String text = sdkTypes();
    int start = text.indexOf("export declare type " + type + " = {\n");
    assertThat(start).as(type + " in sdk.d.ts").isNotNegative();
    int end = text.indexOf("\n};", start);
    Map<String, String> out = new LinkedHashMap<>();
    Matcher m = Pattern.compile("(?m)^    (\\w+)\\??: (.+);$").matcher(text.substring(start, end));
    while (m.find()) {
      out.put(m.group(1), m.group(2));
    }
    return out;
  }

  /** The quoted members of a union type written in sdk.d.ts: {@code 'allow' | 'deny'}. */
  private static List<String> union(String written) {
    List<String> out = new ArrayList<>();
    Matcher m = Pattern.compile("'([^']*)'").matcher(written);
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  @Test
  void ourPreToolUseAnswerUsesOnlyFieldsAndDecisionsClaudeCodeKnows() throws Exception {
    Map<String, String> specific = fields("PreToolUseHookSpecificOutput");
    assertThat(specific.get("hookEventName")).isEqualTo("'PreToolUse'");
    String decisions = sdkTypes()
        .replaceAll("(?s).*export declare type HookPermissionDecision = ([^;]*);.*", "$1");
    for (Decision d : Decision.values()) {
      JsonNode answer = PreToolUseHook.render(d, "x").path("hookSpecificOutput");
      answer.fieldNames().forEachRemaining(f -> assertThat(specific).containsKey(f));
      assertThat(union(decisions)).contains(answer.path("permissionDecision").asText());
    }
  }

  @Test
  void ourPostToolUseOutputIsAdditionalContextClaudeCodeHandsTheModel() throws Exception {
    Map<String, String> specific = fields("PostToolUseHookSpecificOutput");
    assertThat(specific.get("hookEventName")).isEqualTo("'PostToolUse'");
    assertThat(specific.get("additionalContext")).isEqualTo("string");

    Path dir = Files.createTempDirectory("hook-contract");
    Path log = Files.writeString(dir.resolve("violations"), "file-write* /w/.env: denied\n");
    ProcessBuilder pb = new ProcessBuilder("sh", "src/main/dist/pushgate-hook", "--post-tool-use");
    pb.environment().keySet().removeIf(k -> k.startsWith("PUSHGATE_"));
    pb.environment().putAll(Map.of("PUSHGATE_VIOLATIONS", log.toString(), "TMPDIR",
        dir.toString()));
    Process p = pb.start();
    try (OutputStream in = p.getOutputStream()) {
      in.write("{\"hook_event_name\":\"PostToolUse\",\"tool_name\":\"Bash\"}"
          .getBytes(StandardCharsets.UTF_8));
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
    JsonNode output = JSON.readTree(out);
    output.fieldNames().forEachRemaining(f -> assertThat(f).isEqualTo("hookSpecificOutput"));
    output.path("hookSpecificOutput").fieldNames()
        .forEachRemaining(f -> assertThat(specific).containsKey(f));
    assertThat(output.path("hookSpecificOutput").path("additionalContext").asText())
        .contains("file-write* /w/.env: denied");
  }

  @Test
  void theDocsRecommendOnlySettingsClaudeCodeHasAndNameTheVersionChecked() throws Exception {
    String text = sdkTypes();
    int settings = text.indexOf("export declare interface Settings {");
    int commandHook = text.indexOf("type: 'command';", settings);
    assertThat(settings).isNotNegative();
    assertThat(commandHook).isGreaterThan(settings);
    String hook = text.substring(commandHook, text.indexOf("} | {", commandHook));
    String doc = Files.readString(DOC).replaceAll("\\s+", " ");
    assertThat(hook).contains("onFailure?: 'continue' | 'block';");
    assertThat(doc).contains("\"onFailure\": \"block\"");
    JsonNode pkg = JSON.readTree(sdk.resolve("package.json").toFile());
    assertThat(doc).contains("`@anthropic-ai/claude-agent-sdk` " + pkg.path("version").asText())
        .contains("from " + pkg.path("claudeCodeVersion").asText() + ", the version");
  }
}
