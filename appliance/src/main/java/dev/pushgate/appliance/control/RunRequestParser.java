package dev.pushgate.appliance.control;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pushgate.appliance.DefaultRules;
import dev.pushgate.appliance.runs.NewRun;
import dev.pushgate.appliance.runs.RunRequestException;
import dev.pushgate.appliance.runs.SandboxInput;
import dev.pushgate.policy.RulesException;
import dev.pushgate.policy.WorkspaceRules;
import dev.pushgate.types.RepoSlug;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/** Turns the JSON of {@code POST /v1/runs} into a {@link NewRun}, or a 400 that names the field. */
final class RunRequestParser {
  private static final Set<String> FIELDS = Set.of("workspaceId", "sessionId", "agentId", "mode",
      "repository", "attachedRepositories", "rules", "ttlSeconds", "workdir", "agentConfigDir",
      "reposDir", "attachmentsDir", "protectedPaths", "runnerStateDirs", "execGrantRoots",
      "runner", "dispatch", "backend", "egressAllowlist", "env");
  private static final Set<String> SANDBOX_FIELDS = Set.of("workdir", "agentConfigDir",
      "reposDir", "attachmentsDir", "protectedPaths", "runnerStateDirs", "execGrantRoots",
      "runner", "dispatch", "backend", "egressAllowlist", "env");
  private static final Set<String> MODES = Set.of("chat", "plan", "review", "orchestrate");

  private final ObjectMapper json;
  /** Read at each request: a reload (SIGHUP) may replace them between two runs. */
  private final Supplier<DefaultRules> defaults;

  RunRequestParser(ObjectMapper json, DefaultRules defaults) {
    this(json, () -> defaults);
  }

  RunRequestParser(ObjectMapper json, Supplier<DefaultRules> defaults) {
    this.json = json;
    this.defaults = defaults;
  }

  NewRun parse(JsonNode body) throws RunRequestException {
    if (body == null || !body.isObject()) {
      throw bad("the request body must be a JSON object");
    }
    for (Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!FIELDS.contains(f)) {
        throw bad("unknown field '" + (f.length() > 60 ? f.substring(0, 60) + "…" : f) + "'");
      }
    }
    String workspaceId = requiredText(body, "workspaceId");
    String mode = optionalText(body, "mode", "chat");
    if (!MODES.contains(mode)) {
      throw bad("mode must be one of chat, plan, review, orchestrate (got '" + mode + "')");
    }
    RepoSlug repository = slug(requiredText(body, "repository"), "repository");
    List<RepoSlug> attached = new ArrayList<>();
    JsonNode list = body.path("attachedRepositories");
    if (!list.isMissingNode() && !list.isNull()) {
      if (!list.isArray()) {
        throw bad("attachedRepositories must be a list of owner/name strings");
      }
      for (int i = 0; i < list.size(); i++) {
        if (!list.get(i).isTextual()) {
          throw bad("attachedRepositories[" + i + "] must be an owner/name string");
        }
        attached.add(slug(list.get(i).asText(), "attachedRepositories[" + i + "]"));
      }
    }
    JsonNode rulesNode = body.path("rules");
    WorkspaceRules rules;
    String rulesJson;
    if (rulesNode.isMissingNode() || rulesNode.isNull()) {
      DefaultRules current = defaults.get();
      rules = current.rules();
      rulesJson = current.json();
    } else {
      try {
        rules = WorkspaceRules.fromJson(rulesNode, "rules");
      } catch (RulesException e) {
        throw bad(e.getMessage());
      }
      rulesJson = rulesNode.toString();
    }
    Duration ttl = null;
    JsonNode ttlNode = body.path("ttlSeconds");
    if (!ttlNode.isMissingNode() && !ttlNode.isNull()) {
      if (!ttlNode.canConvertToLong() || !ttlNode.isIntegralNumber() || ttlNode.asLong() <= 0) {
        throw bad("ttlSeconds must be a positive whole number of seconds");
      }
      ttl = Duration.ofSeconds(ttlNode.asLong());
    }
    return new NewRun(workspaceId, optionalText(body, "sessionId", null),
        optionalText(body, "agentId", null), mode, repository, attached, rules, rulesJson, ttl,
        sandbox(body));
  }

  /** The sandbox fields; null when none is given (the run then gets no sandbox plan). */
  private SandboxInput sandbox(JsonNode body) throws RunRequestException {
    boolean any = false;
    for (String f : SANDBOX_FIELDS) {
      any |= body.has(f) && !body.get(f).isNull();
    }
    if (!any) {
      return null;
    }
    if (!body.hasNonNull("workdir")) {
      throw bad("missing field 'workdir': a run with sandbox fields needs its workdir");
    }
    String runner = optionalText(body, "runner", null);
    String dispatch = optionalText(body, "dispatch", null);
    if (dispatch != null) {
      switch (dispatch) {
        case "harness-bash" -> {
          if (runner != null && !runner.equals("harness-bash")) {
            throw bad("dispatch harness-bash does not go with runner " + runner);
          }
          runner = "harness-bash";
        }
        case "overlay" -> {
          if ("harness-bash".equals(runner)) {
            throw bad("dispatch overlay does not go with runner harness-bash");
          }
        }
        default -> throw bad("dispatch must be overlay or harness-bash (got '" + dispatch + "')");
      }
    }
    Map<String, String> env = new LinkedHashMap<>();
    JsonNode envNode = body.path("env");
    if (!envNode.isMissingNode() && !envNode.isNull()) {
      if (!envNode.isObject()) {
        throw bad("env must be an object of string values");
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = envNode.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        if (!e.getValue().isTextual()) {
          throw bad("env." + e.getKey() + " must be a string");
        }
        env.put(e.getKey(), e.getValue().asText());
      }
    }
    return new SandboxInput(optionalPath(body, "workdir"), optionalPath(body, "agentConfigDir"),
        optionalPath(body, "reposDir"), optionalPath(body, "attachmentsDir"),
        textList(body, "protectedPaths"), textList(body, "runnerStateDirs"),
        textList(body, "execGrantRoots"), runner, optionalText(body, "backend", null),
        textList(body, "egressAllowlist"), env);
  }

  private static String optionalPath(JsonNode body, String field) throws RunRequestException {
    JsonNode n = body.path(field);
    if (n.isMissingNode() || n.isNull()) {
      return null;
    }
    if (!n.isTextual()) {
      throw bad("'" + field + "' must be an absolute path");
    }
    return n.asText();
  }

  private static List<String> textList(JsonNode body, String field) throws RunRequestException {
    JsonNode n = body.path(field);
    if (n.isMissingNode() || n.isNull()) {
      return List.of();
    }
    if (!n.isArray()) {
      throw bad("'" + field + "' must be a list of strings");
    }
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n.size(); i++) {
      if (!n.get(i).isTextual()) {
        throw bad(field + "[" + i + "] must be a string");
      }
      out.add(n.get(i).asText());
    }
    return out;
  }

  private static RepoSlug slug(String text, String field) throws RunRequestException {
    try {
      return RepoSlug.parse(text);
    } catch (IllegalArgumentException e) {
      throw bad(field + ": " + e.getMessage());
    }
  }

  private static String requiredText(JsonNode body, String field) throws RunRequestException {
    JsonNode n = body.path(field);
    if (n.isMissingNode() || n.isNull()) {
      throw bad("missing field '" + field + "'");
    }
    if (!n.isTextual() || n.asText().isBlank()) {
      throw bad("'" + field + "' must be a non-empty string");
    }
    return checkLength(field, n.asText());
  }

  private static String optionalText(JsonNode body, String field, String fallback)
      throws RunRequestException {
    JsonNode n = body.path(field);
    if (n.isMissingNode() || n.isNull()) {
      return fallback;
    }
    if (!n.isTextual()) {
      throw bad("'" + field + "' must be a string");
    }
    return checkLength(field, n.asText());
  }

  private static String checkLength(String field, String value) throws RunRequestException {
    if (value.length() > 200 || value.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
      throw bad("'" + field + "' must be at most 200 printable characters");
    }
    return value;
  }

  private static RunRequestException bad(String message) {
    return new RunRequestException(RunRequestException.Status.BAD_REQUEST, message);
  }
}
