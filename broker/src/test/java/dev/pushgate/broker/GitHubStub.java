package dev.pushgate.broker;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.request;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.pushgate.types.RepoSlug;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A fake GitHub API under {@code /api/v3} (the GHES layout, so base-path handling is exercised).
 * Bodies built here from the description's own examples are checked against the description's
 * response schemas before they are served, so the fake cannot drift from GitHub.
 */
final class GitHubStub implements AutoCloseable {
  static final String BASE_PATH = "/api/v3";
  static final RepoSlug REPO = new RepoSlug("octocat", "Hello-World");
  /** The repository id in the description's installation-token example. */
  static final long REPO_ID = 1296269;
  static final long INSTALLATION = 4242;
  static final String LOOKUP = "/repos/octocat/Hello-World/installation";
  static final String MINT = "/app/installations/4242/access_tokens";
  static final String REVOKE = "/installation/token";
  static final Map<String, String> READ =
      Map.of("contents", "read", "pull_requests", "write", "metadata", "read");

  final OpenApiContract contract = OpenApiContract.load();
  private final WireMockServer server =
      new WireMockServer(options().dynamicPort().bindAddress("127.0.0.1"));
  private final ObjectMapper json = new ObjectMapper();

  GitHubStub() {
    server.start();
  }

  URI apiBase() {
    return URI.create("http://127.0.0.1:" + server.port() + BASE_PATH);
  }

  void reset() {
    server.resetAll();
  }

  @Override
  public void close() {
    server.stop();
  }

  /** Serves a body that must conform to the operation's response schema. */
  void respond(String method, String path, int status, String body, String requestId) {
    assertThat(contract.responseViolations(method, path, status, body))
        .as("stub body for %s %s %d", method, path, status).isEmpty();
    stub(method, path, jsonResponse(status, body, requestId));
  }

  /** Serves anything at all: for answers GitHub should not give. */
  void stub(String method, String path, ResponseDefinitionBuilder response) {
    server.stubFor(request(method, urlPathEqualTo(BASE_PATH + path)).willReturn(response));
  }

  /** Serves the responses in turn; the last one repeats. */
  void sequence(String method, String path, ResponseDefinitionBuilder... responses) {
    String scenario = method + " " + path;
    for (int i = 0; i < responses.length; i++) {
      var mapping = request(method, urlPathEqualTo(BASE_PATH + path))
          .inScenario(scenario)
          .whenScenarioStateIs(i == 0 ? Scenario.STARTED : "step " + i)
          .willReturn(responses[i]);
      if (i + 1 < responses.length) {
        mapping = mapping.willSetStateTo("step " + (i + 1));
      }
      server.stubFor(mapping);
    }
  }

  static ResponseDefinitionBuilder jsonResponse(int status, String body, String requestId) {
    ResponseDefinitionBuilder r = aResponse().withStatus(status);
    if (requestId != null) {
      r = r.withHeader("x-github-request-id", requestId);
    }
    return body == null ? r : r.withHeader("Content-Type", "application/json; charset=utf-8")
        .withBody(body);
  }

  List<LoggedRequest> requests() {
    return server.findAll(anyRequestedFor(anyUrl()));
  }

  List<LoggedRequest> requests(String method, String path) {
    List<LoggedRequest> out = new ArrayList<>();
    for (LoggedRequest r : requests()) {
      if (r.getMethod().getName().equals(method) && r.getUrl().equals(BASE_PATH + path)) {
        out.add(r);
      }
    }
    return out;
  }

  /** The description's installation example with our installation id. */
  String installation(long id) {
    ObjectNode node = tree(contract.example("installation"));
    node.put("id", id);
    return node.toString();
  }

  /** The description's installation-token example, rescoped. */
  String token(String token, Map<String, String> permissions, String selection,
      List<Map.Entry<Long, String>> repositories) {
    ObjectNode node = tree(contract.example("installation-token"));
    node.put("token", token);
    node.put("expires_at", "2026-12-02T11:00:00Z");
    ObjectNode perms = node.putObject("permissions");
    permissions.forEach(perms::put);
    node.put("repository_selection", selection);
    ObjectNode template = (ObjectNode) node.get("repositories").get(0);
    ArrayNode repos = node.putArray("repositories");
    for (Map.Entry<Long, String> repo : repositories) {
      ObjectNode r = template.deepCopy();
      r.put("id", repo.getKey());
      r.put("full_name", repo.getValue());
      r.put("name", repo.getValue().substring(repo.getValue().indexOf('/') + 1));
      repos.add(r);
    }
    return node.toString();
  }

  /** A token for exactly our repository with the given permissions. */
  String token(String token, Map<String, String> permissions) {
    return token(token, permissions, "selected", List.of(Map.entry(REPO_ID, REPO.toString())));
  }

  /** GitHub's error body: basic-error and validation-error both fit this shape. */
  static String error(int status, String message) {
    return "{\"message\":\"" + message + "\",\"documentation_url\":"
        + "\"https://docs.github.com/rest\",\"status\":\"" + status + "\"}";
  }

  ObjectNode tree(String text) {
    try {
      return (ObjectNode) json.readTree(text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
