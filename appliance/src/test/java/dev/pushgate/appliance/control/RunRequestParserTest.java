package dev.pushgate.appliance.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pushgate.appliance.runs.NewRun;
import dev.pushgate.appliance.runs.RunRequestException;
import dev.pushgate.appliance.runs.SandboxInput;
import dev.pushgate.policy.Decision;
import dev.pushgate.policy.WorkspaceRules;
import dev.pushgate.types.RepoSlug;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code POST /v1/runs} bodies, good and bad; a bad one is a 400 whose message names the field. */
class RunRequestParserTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String MINIMAL = "{'workspaceId': 'ws-1', 'repository': 'acme/widget'";

  private final RunRequestParser parser = new RunRequestParser(JSON, dev.pushgate.appliance.DefaultRules.NONE);

  // ---- good requests

  @Test
  void aMinimalRequestGetsTheDefaults() throws Exception {
    NewRun run = parse(MINIMAL + "}");

    assertThat(run).isEqualTo(new NewRun("ws-1", null, null, "chat", new RepoSlug("acme", "widget"),
        List.of(), WorkspaceRules.DEFAULT, "{}", null, null));
  }

  @Test
  void readsEveryFieldOfAFullRequest() throws Exception {
    NewRun run = parse("""
        {'workspaceId': 'ws-1', 'sessionId': 's-1', 'agentId': 'a-1', 'mode': 'review',
         'repository': 'acme/widget.git', 'attachedRepositories': ['acme/docs', 'other/lib'],
         'rules': {'push': [{'refs': 'refs/heads/main', 'decision': 'deny'}]},
         'ttlSeconds': 600,
         'workdir': '/work/run', 'agentConfigDir': '/work/cfg', 'reposDir': '/work/repos',
         'attachmentsDir': '/work/att', 'protectedPaths': ['/src/orig'],
         'runnerStateDirs': ['/state'], 'execGrantRoots': ['/opt/tools'], 'runner': 'acp',
         'dispatch': 'overlay', 'backend': 'native', 'egressAllowlist': ['*.example.com'],
         'env': {'LANG': 'C.UTF-8'}}""");

    assertThat(run.workspaceId()).isEqualTo("ws-1");
    assertThat(run.sessionId()).isEqualTo("s-1");
    assertThat(run.agentId()).isEqualTo("a-1");
    assertThat(run.mode()).isEqualTo("review");
    assertThat(run.repository()).isEqualTo(new RepoSlug("acme", "widget"));
    assertThat(run.attachedRepositories())
        .containsExactly(new RepoSlug("acme", "docs"), new RepoSlug("other", "lib"));
    assertThat(run.rules().push().judge("refs/heads/main", dev.pushgate.policy.UpdateKind.UPDATE)
        .decision()).isEqualTo(Decision.DENY);
    assertThat(run.rulesJson())
        .isEqualTo("{\"push\":[{\"refs\":\"refs/heads/main\",\"decision\":\"deny\"}]}");
    assertThat(run.ttl()).isEqualTo(Duration.ofMinutes(10));
    assertThat(run.sandbox()).isEqualTo(new SandboxInput("/work/run", "/work/cfg", "/work/repos",
        "/work/att", List.of("/src/orig"), List.of("/state"), List.of("/opt/tools"), "acp",
        "native", List.of("*.example.com"), Map.of("LANG", "C.UTF-8")));
  }

  @Test
  void nullFieldsCountAsLeftOut() throws Exception {
    NewRun run = parse(MINIMAL + ", 'mode': null, 'sessionId': null, 'attachedRepositories': null,"
        + " 'rules': null, 'ttlSeconds': null, 'workdir': null, 'env': null, 'runner': null}");

    assertThat(run).isEqualTo(new NewRun("ws-1", null, null, "chat", new RepoSlug("acme", "widget"),
        List.of(), WorkspaceRules.DEFAULT, "{}", null, null));
  }

  @Test
  void aWorkdirAloneMakesASandboxInput() throws Exception {
    assertThat(parse(MINIMAL + ", 'workdir': '/work/run'}").sandbox()).isEqualTo(
        new SandboxInput("/work/run", null, null, null, List.of(), List.of(), List.of(), null, null,
            List.of(), Map.of()));
  }

  @Test
  void dispatchHarnessBashMakesTheRunnerHarnessBash() throws Exception {
    assertThat(parse(MINIMAL + ", 'workdir': '/w', 'dispatch': 'harness-bash'}").sandbox().runner())
        .isEqualTo("harness-bash");
  }

  @Test
  void dispatchOverlayKeepsTheRunner() throws Exception {
    assertThat(parse(MINIMAL + ", 'workdir': '/w', 'dispatch': 'overlay', 'runner': 'claude-code'}")
        .sandbox().runner()).isEqualTo("claude-code");
    assertThat(parse(MINIMAL + ", 'workdir': '/w', 'dispatch': 'overlay'}").sandbox().runner())
        .isNull();
  }

  @Test
  void acceptsAWorkspaceIdOfExactly200Characters() throws Exception {
    String id = "w".repeat(200);

    assertThat(parse("{'workspaceId': '" + id + "', 'repository': 'acme/widget'}").workspaceId())
        .isEqualTo(id);
  }

  // ---- the body and its fields

  @Test
  void refusesABodyThatIsNotAnObject() {
    for (String body : List.of("[]", "'ws-1'", "42", "null", "true")) {
      assertThat(error(body)).as(body).isEqualTo("the request body must be a JSON object");
    }
    assertThat(catchThrowableOfType(RunRequestException.class, () -> parser.parse(null)))
        .hasMessage("the request body must be a JSON object");
  }

  @Test
  void refusesAnUnknownField() {
    assertThat(error(MINIMAL + ", 'colour': 'red'}")).isEqualTo("unknown field 'colour'");
    assertThat(error(MINIMAL + ", 'WorkspaceId': 'x'}")).isEqualTo("unknown field 'WorkspaceId'");
  }

  @Test
  void aBadRequestIsA400() {
    RunRequestException e = catchThrowableOfType(RunRequestException.class,
        () -> parser.parse(json("{}")));

    assertThat(e.status()).isEqualTo(RunRequestException.Status.BAD_REQUEST);
    assertThat(e.status().http).isEqualTo(400);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
      "{'repository': 'acme/widget'}                                 | missing field 'workspaceId'",
      "{'workspaceId': null, 'repository': 'acme/widget'}            | missing field 'workspaceId'",
      "{'workspaceId': 7, 'repository': 'acme/widget'}               | 'workspaceId' must be a non-empty string",
      "{'workspaceId': ['ws'], 'repository': 'acme/widget'}          | 'workspaceId' must be a non-empty string",
      "{'workspaceId': '', 'repository': 'acme/widget'}              | 'workspaceId' must be a non-empty string",
      "{'workspaceId': '   ', 'repository': 'acme/widget'}           | 'workspaceId' must be a non-empty string",
      "{'workspaceId': 'ws-1'}                                       | missing field 'repository'",
      "{'workspaceId': 'ws-1', 'repository': 42}                     | 'repository' must be a non-empty string",
      "{'workspaceId': 'ws-1', 'repository': ''}                     | 'repository' must be a non-empty string",
  })
  void refusesAMissingOrMistypedRequiredField(String body, String message) {
    assertThat(error(body)).isEqualTo(message);
  }

  @Test
  void refusesControlCharactersAndOverlongText() {
    assertThat(error("{'workspaceId': 'ws\\u0000', 'repository': 'acme/widget'}"))
        .isEqualTo("'workspaceId' must be at most 200 printable characters");
    assertThat(error("{'workspaceId': 'ws\\nx', 'repository': 'acme/widget'}"))
        .isEqualTo("'workspaceId' must be at most 200 printable characters");
    assertThat(error("{'workspaceId': '" + "w".repeat(201) + "', 'repository': 'acme/widget'}"))
        .isEqualTo("'workspaceId' must be at most 200 printable characters");
    assertThat(error(MINIMAL + ", 'sessionId': 's\\u007f'}"))
        .isEqualTo("'sessionId' must be at most 200 printable characters");
    assertThat(error(MINIMAL + ", 'agentId': '" + "a".repeat(201) + "'}"))
        .isEqualTo("'agentId' must be at most 200 printable characters");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
      "'sessionId': 1          | 'sessionId' must be a string",
      "'agentId': {}           | 'agentId' must be a string",
      "'mode': 3               | 'mode' must be a string",
      "'mode': 'yolo'          | mode must be one of chat, plan, review, orchestrate (got 'yolo')",
      "'mode': 'Chat'          | mode must be one of chat, plan, review, orchestrate (got 'Chat')",
      "'mode': ''              | mode must be one of chat, plan, review, orchestrate (got '')",
      "'mode': 'chat\\u001b'    | 'mode' must be at most 200 printable characters",
  })
  void refusesABadOptionalTextField(String field, String message) {
    assertThat(error(MINIMAL + ", " + field + "}")).isEqualTo(message);
  }

  // ---- repositories

  @ParameterizedTest
  @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
      "acme                 | repository: not a repository (expected owner/name): acme",
      "acme/widget/extra    | repository: not a repository (expected owner/name): acme/widget/extra",
      "../etc               | repository: not a valid repository owner: ..",
      "acme/..              | repository: not a valid repository name: ..",
      "acme/.               | repository: not a valid repository name: .",
      "acme/...git          | repository: not a valid repository name: ..",
      "/widget              | \"repository: not a valid repository owner: \"\"\"\"\"",
      "acme/                | \"repository: not a valid repository name: \"\"\"\"\"",
      "acme/.git            | \"repository: not a valid repository name: \"\"\"\"\"",
      "acme\\x/widget       | repository: not a valid repository owner: acme\\x",
      "acme/wid get         | repository: not a valid repository name: wid get",
      "-acme/widget         | repository: not a valid repository owner: -acme",
      "acme/%2e%2e          | repository: not a valid repository name: %2e%2e",
  })
  void refusesARepositoryThatIsNotOwnerSlashName(String slug, String message) {
    ObjectNode body = body();
    body.put("repository", slug);

    assertThat(error(body)).isEqualTo(message);
  }

  @Test
  void refusesAControlCharacterInTheRepositoryWithoutEchoingIt() {
    assertThat(error("{'workspaceId': 'ws-1', 'repository': 'acme/wid\\u0007get'}"))
        .isEqualTo("'repository' must be at most 200 printable characters");
  }

  @Test
  void refusesBadAttachedRepositories() {
    assertThat(error(MINIMAL + ", 'attachedRepositories': 'acme/docs'}"))
        .isEqualTo("attachedRepositories must be a list of owner/name strings");
    assertThat(error(MINIMAL + ", 'attachedRepositories': {'a': 'acme/docs'}}"))
        .isEqualTo("attachedRepositories must be a list of owner/name strings");
    assertThat(error(MINIMAL + ", 'attachedRepositories': ['acme/docs', 7]}"))
        .isEqualTo("attachedRepositories[1] must be an owner/name string");
    assertThat(error(MINIMAL + ", 'attachedRepositories': [null]}"))
        .isEqualTo("attachedRepositories[0] must be an owner/name string");
    assertThat(error(MINIMAL + ", 'attachedRepositories': ['acme/docs', '../etc']}"))
        .isEqualTo("attachedRepositories[1]: not a valid repository owner: ..");
    assertThat(error(MINIMAL + ", 'attachedRepositories': ['acme/wid\\nget']}"))
        .isEqualTo("attachedRepositories[0]: not a valid repository name: wid\\x0aget");
  }

  // ---- rules

  @Test
  void rulesErrorsNameTheirPathUnderRules() {
    assertThat(error(MINIMAL + ", 'rules': {'push': [{'refs': 'refs/heads/main', 'decision': 'maybe'}]}}"))
        .isEqualTo("rules.push[0].decision: bad decision 'maybe' (expected allow, ask or deny)");
    assertThat(error(MINIMAL + ", 'rules': {'push': [{'refs': 'refs/heads/main', 'decision': 'deny'},"
        + " {'refs': 'main', 'decision': 'deny'}]}}"))
        .isEqualTo("rules.push[1].refs: bad pattern: ref pattern must start with refs/"
            + " (for example refs/heads/main): main");
    assertThat(error(MINIMAL + ", 'rules': {'push': [{'decision': 'deny'}]}}"))
        .isEqualTo("rules.push[0]: a push rule is missing 'refs'");
    assertThat(error(MINIMAL + ", 'rules': {'push': [{'refs': 'refs/heads/main', 'decision': 'deny',"
        + " 'reason': 'two\\nlines'}]}}"))
        .isEqualTo("rules.push[0].reason: multi-line reason (a reason is shown on one line of git's output)");
    assertThat(error(MINIMAL + ", 'rules': {'push': [{'refs': 'refs/heads/main', 'decision': 'deny',"
        + " 'kinds': []}]}}"))
        .isEqualTo("rules.push[0].kinds: 'kinds' is empty (leave it out to cover every kind of update)");
  }

  @Test
  void rulesThatAreNotAMappingAreRefused() {
    assertThat(error(MINIMAL + ", 'rules': 'deny'}")).isEqualTo("rules: the rules document must be"
        + " a mapping of action ids to decisions, not the string 'deny'");
    assertThat(error(MINIMAL + ", 'rules': ['deny']}"))
        .startsWith("rules: the rules document must be a mapping of action ids to decisions, not ");
  }

  @Test
  void anUnknownRuleKeyIsRefused() {
    assertThat(error(MINIMAL + ", 'rules': {'pushh': 'deny'}}")).isEqualTo("rules.pushh: unknown key"
        + " 'pushh' (expected push, commit, open-pull-request, publish-review-or-merge,"
        + " write-tracker, install-package, access-network, push-workflows, content or denyWriteGlobs)");
  }

  // ---- ttl

  @ParameterizedTest
  @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
      "0", "-5", "1.5", "60.0", "1e3", "'60'", "true", "[60]", "{}", "100000000000000000000000"})
  void refusesATtlThatIsNotAPositiveWholeNumber(String ttl) {
    assertThat(error(MINIMAL + ", 'ttlSeconds': " + ttl + "}"))
        .isEqualTo("ttlSeconds must be a positive whole number of seconds");
  }

  @Test
  void readsAPositiveTtl() throws Exception {
    assertThat(parse(MINIMAL + ", 'ttlSeconds': 1}").ttl()).isEqualTo(Duration.ofSeconds(1));
  }

  // ---- sandbox fields

  @ParameterizedTest
  @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
      "'agentConfigDir': '/cfg'",
      "'reposDir': '/repos'",
      "'attachmentsDir': '/att'",
      "'protectedPaths': []",
      "'runnerStateDirs': ['/s']",
      "'execGrantRoots': ['/x']",
      "'runner': 'acp'",
      "'dispatch': 'overlay'",
      "'backend': 'native'",
      "'egressAllowlist': []",
      "'env': {}",
  })
  void aSandboxFieldWithoutWorkdirIsRefused(String field) {
    assertThat(error(MINIMAL + ", " + field + "}"))
        .isEqualTo("missing field 'workdir': a run with sandbox fields needs its workdir");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
      "'workdir': 5                      | 'workdir' must be an absolute path",
      "'workdir': ['/w']                 | 'workdir' must be an absolute path",
      "'workdir': '/w', 'reposDir': true | 'reposDir' must be an absolute path",
      "'workdir': '/w', 'protectedPaths': '/p'     | 'protectedPaths' must be a list of strings",
      "'workdir': '/w', 'protectedPaths': ['/p', 1] | protectedPaths[1] must be a string",
      "'workdir': '/w', 'egressAllowlist': [null]  | egressAllowlist[0] must be a string",
      "'workdir': '/w', 'runner': 1      | 'runner' must be a string",
      "'workdir': '/w', 'backend': false | 'backend' must be a string",
      "'workdir': '/w', 'dispatch': 2    | 'dispatch' must be a string",
      "'workdir': '/w', 'dispatch': 'docker'  | dispatch must be overlay or harness-bash (got 'docker')",
      "'workdir': '/w', 'dispatch': 'overlay', 'runner': 'harness-bash' | dispatch overlay does not go with runner harness-bash",
  })
  void refusesBadSandboxFields(String fields, String message) {
    assertThat(error(MINIMAL + ", " + fields + "}")).isEqualTo(message);
  }

  @Test
  void envMustHoldStringsOnly() {
    assertThat(error(MINIMAL + ", 'workdir': '/w', 'env': ['A=1']}"))
        .isEqualTo("env must be an object of string values");
    assertThat(error(MINIMAL + ", 'workdir': '/w', 'env': 'A=1'}"))
        .isEqualTo("env must be an object of string values");
    assertThat(error(MINIMAL + ", 'workdir': '/w', 'env': {'LANG': 'C', 'DEBUG': 1}}"))
        .isEqualTo("env.DEBUG must be a string");
    assertThat(error(MINIMAL + ", 'workdir': '/w', 'env': {'A': null}}"))
        .isEqualTo("env.A must be a string");
    assertThat(error(MINIMAL + ", 'workdir': '/w', 'env': {'A': {'b': 'c'}}}"))
        .isEqualTo("env.A must be a string");
  }

  // ---- helpers

  private NewRun parse(String singleQuoted) throws RunRequestException {
    return parser.parse(json(singleQuoted));
  }

  private String error(String singleQuoted) {
    return error(json(singleQuoted));
  }

  private String error(JsonNode body) {
    RunRequestException e = catchThrowableOfType(RunRequestException.class, () -> parser.parse(body));
    assertThat(e).as("a RunRequestException for %s", body).isNotNull();
    assertThat(e.status()).isEqualTo(RunRequestException.Status.BAD_REQUEST);
    return e.getMessage();
  }

  private static ObjectNode body() {
    ObjectNode n = JSON.createObjectNode();
    n.put("workspaceId", "ws-1");
    return n;
  }

  /** JSON written with single quotes, for readability; a literal {@code \\} stays a JSON escape. */
  private static JsonNode json(String singleQuoted) {
    try {
      return JSON.readTree(singleQuoted.replace('\'', '"'));
    } catch (Exception e) {
      throw new IllegalArgumentException("bad test JSON: " + singleQuoted, e);
    }
  }
}
