package dev.pushgate.broker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.dialect.Dialects;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * GitHub's own OpenAPI description (the subset in src/test/resources, copied from
 * shared/reference) as a checker: which operations exist, what their request bodies and
 * responses look like. Schemas are validated with the OpenAPI 3.0 dialect, {@code $ref}s resolved
 * inside the document.
 */
final class OpenApiContract {
  private static final String RESOURCE = "/github-openapi-subset.json";
  private static final String IRI = "https://pushgate.test/github-openapi-subset.json";

  private final JsonNode spec;
  private final SchemaRegistry registry;

  private OpenApiContract(String text) {
    try {
      this.spec = new ObjectMapper().readTree(text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    this.registry = SchemaRegistry.withDefaultDialect(
        Dialects.getOpenApi30(), b -> b.schemas(Map.of(IRI, text)));
  }

  static OpenApiContract load() {
    try (InputStream in = OpenApiContract.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is missing from the test resources");
      }
      return new OpenApiContract(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** An operation: the spec's path template and method. */
  record Operation(String template, String method, JsonNode node) {}

  /** The spec operation matching a method and a path below the API base, or null. */
  Operation operation(String method, String path) {
    String m = method.toLowerCase(Locale.ROOT);
    for (Map.Entry<String, JsonNode> entry : spec.get("paths").properties()) {
      String regex = Pattern.quote(entry.getKey()).replaceAll("\\{[^}]+}", "\\\\E[^/]+\\\\Q");
      if (path.matches(regex) && entry.getValue().has(m)) {
        return new Operation(entry.getKey(), m, entry.getValue().get(m));
      }
    }
    return null;
  }

  /** Everything about a request the broker sent that GitHub's description does not allow. */
  List<String> violations(LoggedRequest request, String basePath) {
    List<String> out = new ArrayList<>();
    String method = request.getMethod().getName();
    String path = request.getUrl().replaceFirst("\\?.*", "");
    if (!path.startsWith(basePath + "/")) {
      out.add(method + " " + path + " is not below the API base " + basePath);
      return out;
    }
    path = path.substring(basePath.length());
    Operation op = operation(method, path);
    if (op == null) {
      out.add(method + " " + path + " is not an operation in GitHub's description");
      return out;
    }
    String what = method + " " + path;
    out.addAll(pathParameterViolations(op, path, what));
    header(request, "Accept", "application/vnd.github+json", what, out);
    header(request, "X-GitHub-Api-Version", "2022-11-28", what, out);
    if (!request.containsHeader("User-Agent") || request.getHeader("User-Agent").isBlank()) {
      out.add(what + " has no User-Agent (GitHub refuses such requests)");
    }
    String auth = request.containsHeader("Authorization") ? request.getHeader("Authorization") : "";
    if (!auth.startsWith("Bearer ") || auth.length() <= "Bearer ".length()) {
      out.add(what + " has no bearer credential");
    }
    JsonNode requestBody = op.node().get("requestBody");
    String body = request.getBodyAsString();
    if (requestBody == null) {
      if (!body.isEmpty()) {
        out.add(what + " has a body, but the operation takes none");
      }
    } else if (!body.isEmpty() || requestBody.path("required").asBoolean(false)) {
      String type = request.containsHeader("Content-Type") ? request.getHeader("Content-Type") : "";
      if (!type.startsWith("application/json")) {
        out.add(what + " sends Content-Type " + type + ", not application/json");
      }
      String pointer = "/paths/" + escape(op.template()) + "/" + op.method()
          + "/requestBody/content/application~1json/schema";
      for (Error e : schema(pointer).validate(body, InputFormat.JSON)) {
        out.add(what + " body: " + e);
      }
    }
    return out;
  }

  /** Everything about a response body that the operation's response schema does not allow. */
  List<String> responseViolations(String method, String path, int status, String body) {
    Operation op = operation(method, path);
    if (op == null) {
      return List.of(method + " " + path + " is not an operation in GitHub's description");
    }
    JsonNode response = op.node().path("responses").get(Integer.toString(status));
    if (response == null) {
      return List.of(method + " " + path + " has no " + status + " response in the description");
    }
    String pointer = "/paths/" + escape(op.template()) + "/" + op.method() + "/responses/" + status;
    if (response.has("$ref")) {
      pointer = response.get("$ref").asText().substring(1);
      response = spec.at(pointer);
    }
    if (!response.path("content").has("application/json")) {
      return body.isEmpty() ? List.of() : List.of(status + " response should have no body");
    }
    List<String> out = new ArrayList<>();
    for (Error e : schema(pointer + "/content/application~1json/schema")
        .validate(body, InputFormat.JSON)) {
      out.add(method + " " + path + " " + status + ": " + e);
    }
    return out;
  }

  /** The JSON of {@code components/examples/<name>/value}. */
  String example(String name) {
    JsonNode value = spec.path("components").path("examples").path(name).get("value");
    if (value == null) {
      throw new IllegalArgumentException("no example " + name + " in the description");
    }
    return value.toString();
  }

  private Schema schema(String pointer) {
    return registry.getSchema(SchemaLocation.of(IRI + "#" + pointer));
  }

  private List<String> pathParameterViolations(Operation op, String path, String what) {
    List<String> out = new ArrayList<>();
    List<String> names = new ArrayList<>();
    Matcher names0 = Pattern.compile("\\{([^}]+)}").matcher(op.template());
    while (names0.find()) {
      names.add(names0.group(1));
    }
    String regex = Pattern.quote(op.template()).replaceAll("\\{[^}]+}", "\\\\E([^/]+)\\\\Q");
    Matcher values = Pattern.compile(regex).matcher(path);
    if (!values.matches()) {
      return List.of(what + " does not match " + op.template());
    }
    for (JsonNode parameter : op.node().path("parameters")) {
      JsonNode p = parameter.has("$ref") ? spec.at(parameter.get("$ref").asText().substring(1))
          : parameter;
      if (!"path".equals(p.path("in").asText())) {
        continue;
      }
      int index = names.indexOf(p.path("name").asText());
      if (index < 0) {
        out.add(what + " lacks path parameter " + p.path("name").asText());
        continue;
      }
      String value = values.group(index + 1);
      if ("integer".equals(p.path("schema").path("type").asText()) && !value.matches("[0-9]+")) {
        out.add(what + " path parameter " + p.path("name").asText() + " is not an integer: "
            + value);
      }
    }
    return out;
  }

  private static void header(LoggedRequest request, String name, String expected, String what,
      List<String> out) {
    String actual = request.containsHeader(name) ? request.getHeader(name) : null;
    if (!expected.equals(actual)) {
      out.add(what + " has " + name + ": " + actual + ", expected " + expected);
    }
  }

  private static String escape(String template) {
    return template.replace("~", "~0").replace("/", "~1");
  }
}
