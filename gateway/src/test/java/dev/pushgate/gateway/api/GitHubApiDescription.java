package dev.pushgate.gateway.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * GitHub's own description of its API, as npm ships it ({@code @octokit/openapi} for REST,
 * {@code @octokit/graphql-schema} for GraphQL; {@code .ci/run} installs both into
 * {@code gateway/target/github-api-description}): every write operation, made into a call the
 * judge reads, with the run's repository and GitHub's own example body where it gives one.
 */
final class GitHubApiDescription {
  /** Where .ci/run installs the packages; overridden by this system property. */
  static final String DIRECTORY_PROPERTY = "pushgate.githubApiDescription";
  private static final Path DEFAULT_DIRECTORY = Path.of("target", "github-api-description");
  private static final List<String> WRITE_METHODS = List.of("post", "put", "patch", "delete");
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One write operation: how the table names it, and the call that performs it. */
  record Operation(String name, ApiCall call) {}

  private GitHubApiDescription() {}

  static Path directory() {
    String given = System.getProperty(DIRECTORY_PROPERTY);
    return (given == null || given.isBlank() ? DEFAULT_DIRECTORY : Path.of(given))
        .resolve("node_modules").resolve("@octokit");
  }

  /**
   * GitHub's REST descriptions: one per product, as {@code @octokit/openapi} names them. Each says
   * its server (GitHub Enterprise Server's is {@code {protocol}://{hostname}/api/v3}, here the
   * run's GHES host), and an operation may name another (release assets: the uploads host).
   */
  enum Rest {
    GITHUB_COM("api.github.com"),
    ENTERPRISE_CLOUD("ghec"),
    ENTERPRISE_SERVER("ghes-3.19");

    private final String file;

    Rest(String file) {
      this.file = file;
    }

    Path file() {
      return directory().resolve("openapi/generated/" + file + ".json");
    }
  }

  static Path graphQlFile() {
    return directory().resolve("graphql-schema/schema.json");
  }

  /** Every POST, PUT, PATCH and DELETE of the description, in its order, on its host. */
  static List<Operation> restWrites(Rest description) throws IOException {
    return operations(description, WRITE_METHODS, (root, op) -> true,
        (root, op) -> JSON.writeValueAsBytes(exampleBody(root, op)));
  }

  /**
   * Every GET of the description whose success answer (any 2xx, any media type) has, anywhere in
   * its schema ({@code $ref}s, {@code allOf}/{@code oneOf}/{@code anyOf}, {@code items}, {@code
   * properties}, {@code additionalProperties} followed), a property {@code property} typed string:
   * named by its path as described, called at that path filled in, on its server's path.
   */
  static List<Operation> getsAnsweringWith(Rest description, String property) throws IOException {
    return operations(description, List.of("get"),
        (root, op) -> answersWith(root, op, property), (root, op) -> new byte[0]);
  }

  /** How an operation's call gets its body: from the description and the operation. */
  private interface BodyOf {
    byte[] of(JsonNode root, JsonNode op) throws IOException;
  }

  /**
   * The operations of {@code methods} that {@code wanted} keeps, in the description's order, each
   * made into a call on its host with its path filled in and {@code body} (none: no content type).
   */
  private static List<Operation> operations(Rest description, List<String> methods,
      java.util.function.BiPredicate<JsonNode, JsonNode> wanted, BodyOf body) throws IOException {
    JsonNode root = JSON.readTree(description.file().toFile());
    URI server = server(root);
    List<Operation> out = new ArrayList<>();
    for (Iterator<Map.Entry<String, JsonNode>> paths = root.get("paths").fields();
        paths.hasNext(); ) {
      Map.Entry<String, JsonNode> path = paths.next();
      for (String method : methods) {
        JsonNode op = path.getValue().get(method);
        if (op == null || !wanted.test(root, op)) {
          continue;
        }
        String concrete = concretePath(root, path.getKey(), path.getValue(), op);
        byte[] bytes = body.of(root, op);
        String upper = method.toUpperCase(java.util.Locale.ROOT);
        URI at = op.has("servers") ? server(op) : server;
        out.add(new Operation(upper + " " + path.getKey(), new ApiCall(upper, at.getHost(),
            at.getPath() + concrete, "", bytes.length == 0 ? null : "application/json", bytes)));
      }
    }
    return out;
  }

  private static boolean answersWith(JsonNode root, JsonNode op, String property) {
    for (Iterator<Map.Entry<String, JsonNode>> answers = op.path("responses").fields();
        answers.hasNext(); ) {
      Map.Entry<String, JsonNode> answer = answers.next();
      if (!answer.getKey().startsWith("2")) {
        continue;
      }
      for (JsonNode media : resolved(root, answer.getValue()).path("content")) {
        if (hasProperty(root, media.path("schema"), property,
            java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>()))) {
          return true;
        }
      }
    }
    return false;
  }

  /** Whether {@code schema}, or any schema it holds, has a string property {@code name}. */
  private static boolean hasProperty(JsonNode root, JsonNode schema, String name,
      java.util.Set<JsonNode> visited) {
    JsonNode s = resolved(root, schema);
    if (!s.isObject() || !visited.add(s)) {
      return false;
    }
    JsonNode found = resolved(root, s.path("properties").path(name));
    JsonNode type = found.path("type");
    if (type.asText().equals("string")
        || type.isArray() && type.toString().contains("\"string\"")) {
      return true;
    }
    List<JsonNode> held = new ArrayList<>();
    for (String combined : List.of("allOf", "oneOf", "anyOf")) {
      s.path(combined).forEach(held::add);
    }
    held.add(s.path("items"));
    held.add(s.path("additionalProperties"));
    s.path("properties").forEach(held::add);
    return held.stream().anyMatch(h -> hasProperty(root, h, name, visited));
  }

  /** The first server a description or operation names, with the run's GHES host for its own. */
  private static URI server(JsonNode node) {
    String url = node.get("servers").get(0).get("url").asText()
        .replace("{protocol}", "https").replace("{hostname}", ApiJudgeFixture.GHES)
        .replace("HOSTNAME", ApiJudgeFixture.GHES);
    URI uri = URI.create(url);
    String path = uri.getPath() == null || uri.getPath().equals("/") ? "" : uri.getPath();
    return URI.create("https://" + uri.getHost() + path);
  }

  /** Every field of the schema's mutation type, each sent alone in one GraphQL call. */
  static List<Operation> mutations() throws IOException {
    JsonNode schema = JSON.readTree(graphQlFile().toFile()).get("__schema");
    String mutationType = schema.get("mutationType").get("name").asText();
    List<Operation> out = new ArrayList<>();
    for (JsonNode type : schema.get("types")) {
      if (!type.get("name").asText().equals(mutationType)) {
        continue;
      }
      for (JsonNode field : type.get("fields")) {
        String name = field.get("name").asText();
        ObjectNode body = JsonNodeFactory.instance.objectNode();
        body.put("query", "mutation($input: " + inputType(field) + ") { " + name
            + "(input: $input) { __typename } }");
        body.putObject("variables").set("input", sampleInput(name));
        out.add(new Operation("mutation " + name, new ApiCall("POST", ApiHosts.API, "/graphql",
            "", "application/json", JSON.writeValueAsBytes(body))));
      }
    }
    return out;
  }

  private static String inputType(JsonNode field) {
    for (JsonNode arg : field.get("args")) {
      if (arg.get("name").asText().equals("input")) {
        return typeName(arg.get("type"));
      }
    }
    return "String";
  }

  private static String typeName(JsonNode type) {
    return switch (type.get("kind").asText()) {
      case "NON_NULL" -> typeName(type.get("ofType")) + "!";
      case "LIST" -> "[" + typeName(type.get("ofType")) + "]";
      default -> type.get("name").asText();
    };
  }

  /**
   * The input of a mutation whose judgement reads the ref or files it names; any other input is
   * {@code {}} (the judge decides those by the field's name).
   */
  private static JsonNode sampleInput(String mutation) throws IOException {
    String json = switch (mutation) {
      case "createCommitOnBranch" -> """
          {"branch": {"repositoryNameWithOwner": "acme/widget", "branchName": "feature"},
           "expectedHeadOid": "0000000000000000000000000000000000000001",
           "message": {"headline": "Fix the parser"},
           "fileChanges": {"additions": [{"path": "src/app.py", "contents": "cHJpbnQoMSkK"}]}}
          """;
      case "createRef" -> """
          {"repositoryId": "R_1", "name": "refs/heads/feature",
           "oid": "0000000000000000000000000000000000000001"}
          """;
      case "updateRef" -> """
          {"refId": "REF_1", "oid": "0000000000000000000000000000000000000001"}
          """;
      case "updateRefs" -> """
          {"repositoryId": "R_1", "refUpdates": [{"name": "refs/heads/feature",
           "afterOid": "0000000000000000000000000000000000000001"}]}
          """;
      default -> "{}";
    };
    return JSON.readTree(json);
  }

  /** The path with the run's repository and a plain value for each other parameter. */
  private static String concretePath(JsonNode root, String template, JsonNode pathItem,
      JsonNode op) {
    // A template repository is the run's own too, so the route is judged, not the repository.
    String out = template.replace("{owner}", ApiJudgeFixture.WIDGET.owner())
        .replace("{repo}", ApiJudgeFixture.WIDGET.name())
        .replace("{template_owner}", ApiJudgeFixture.WIDGET.owner())
        .replace("{template_repo}", ApiJudgeFixture.WIDGET.name());
    List<JsonNode> params = new ArrayList<>();
    pathItem.path("parameters").forEach(params::add);
    op.path("parameters").forEach(params::add);
    for (JsonNode p : params) {
      JsonNode param = resolved(root, p);
      if (!param.path("in").asText().equals("path")) {
        continue;
      }
      String name = param.get("name").asText();
      out = out.replace("{" + name + "}", sampleValue(name, resolved(root, param.path("schema"))));
    }
    return out;
  }

  private static String sampleValue(String name, JsonNode schema) {
    if (schema.path("type").asText().equals("integer")) {
      return "1";
    }
    return switch (name) {
      case "ref" -> "heads/feature";
      case "path" -> "src/app.py";
      case "branch" -> "feature";
      case "commit_sha", "sha" -> "0000000000000000000000000000000000000001";
      default -> "sample";
    };
  }

  /** GitHub's first example of the JSON body, or {@code {}} when it gives none. */
  private static JsonNode exampleBody(JsonNode root, JsonNode op) {
    JsonNode media = resolved(root, op.path("requestBody")).path("content")
        .path("application/json");
    Optional<JsonNode> example = Optional.empty();
    if (media.has("example")) {
      example = Optional.of(media.get("example"));
    } else if (media.path("examples").size() > 0) {
      example = Optional.of(resolved(root, media.get("examples").elements().next()).path("value"));
    }
    return example.filter(e -> !e.isMissingNode() && !e.isNull())
        .orElseGet(JsonNodeFactory.instance::objectNode);
  }

  /** {@code node}, or what its {@code $ref} points at within the same description. */
  private static JsonNode resolved(JsonNode root, JsonNode node) {
    JsonNode ref = node.get("$ref");
    if (ref == null || !ref.asText().startsWith("#/")) {
      return node;
    }
    return resolved(root, root.at(ref.asText().substring(1)));
  }
}
