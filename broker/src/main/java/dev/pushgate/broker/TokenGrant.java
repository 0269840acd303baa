package dev.pushgate.broker;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pushgate.types.Secret;
import java.io.IOException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * GitHub's answer to a token request, read strictly. {@code repositories} is null when GitHub did
 * not list them (the scope then cannot be confirmed).
 */
record TokenGrant(
    Secret token,
    Instant expiresAt,
    Map<String, String> permissions,
    String repositorySelection,
    List<GrantedRepository> repositories) {

  record GrantedRepository(long id, String name, String fullName) {}

  /** Why an answer could not be read; carries the token if one was found, so it can be revoked. */
  static final class Unreadable extends Exception {
    private final transient Secret token;

    Unreadable(String why, Secret token) {
      super(why);
      this.token = token;
    }

    Optional<Secret> token() {
      return Optional.ofNullable(token);
    }
  }

  static TokenGrant parse(byte[] body, ObjectMapper json) throws Unreadable {
    JsonNode root;
    try {
      // Duplicate keys are refused: two "permissions" must not let a reader see the smaller one.
      root = json.reader().with(StreamReadFeature.STRICT_DUPLICATE_DETECTION).readTree(body);
    } catch (IOException e) {
      // Read again leniently only now: a second parse of every grant was a mint's largest
      // share of the broker's CPU (docs/benchmarks.md, issue 33)
      throw new Unreadable("is not valid JSON", salvageToken(body, json));
    }
    if (root == null || !root.isObject()) {
      // what a lenient reader makes of a body that is no object has no token either
      throw new Unreadable("is not a JSON object", null);
    }
    JsonNode token = root.get("token");
    if (token == null || !token.isTextual() || token.asText().isEmpty()) {
      throw new Unreadable("has no token", null);
    }
    Secret secret = Secret.of(token.asText());
    if (!Text.headerSafe(secret.reveal())) {
      throw new Unreadable("has a token with characters not allowed in an HTTP header", null);
    }
    Instant expiresAt = instant(root.get("expires_at"), secret);
    Map<String, String> permissions = permissions(root.get("permissions"), secret);
    JsonNode selection = root.get("repository_selection");
    if (selection != null && !selection.isNull() && !selection.isTextual()) {
      throw new Unreadable("has a repository_selection that is not a string", secret);
    }
    return new TokenGrant(secret, expiresAt, permissions,
        selection == null || selection.isNull() ? null : selection.asText(),
        repositories(root.get("repositories"), secret));
  }

  /** The token as a lenient reader sees it, to revoke it when the strict read fails. */
  private static Secret salvageToken(byte[] body, ObjectMapper json) {
    try {
      JsonNode token = json.readTree(body).get("token");
      return token != null && token.isTextual() && !token.asText().isEmpty()
          && Text.headerSafe(token.asText()) ? Secret.of(token.asText()) : null;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  private static Instant instant(JsonNode node, Secret token) throws Unreadable {
    if (node == null || !node.isTextual()) {
      throw new Unreadable("has no expires_at", token);
    }
    try {
      return OffsetDateTime.parse(node.asText(), DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
    } catch (DateTimeParseException e) {
      throw new Unreadable("has an expires_at that is not a date-time", token);
    }
  }

  private static Map<String, String> permissions(JsonNode node, Secret token) throws Unreadable {
    if (node == null || !node.isObject()) {
      throw new Unreadable("does not list the token's permissions", token);
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> field : node.properties()) {
      if (!field.getValue().isTextual()) {
        throw new Unreadable("has a permission level that is not a string", token);
      }
      out.put(field.getKey(), field.getValue().asText());
    }
    return out;
  }

  private static List<GrantedRepository> repositories(JsonNode node, Secret token)
      throws Unreadable {
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isArray()) {
      throw new Unreadable("has repositories that are not a list", token);
    }
    List<GrantedRepository> out = new ArrayList<>();
    for (JsonNode repo : node) {
      JsonNode id = repo.get("id");
      JsonNode name = repo.get("name");
      JsonNode fullName = repo.get("full_name");
      if (id == null || !id.isIntegralNumber() || !id.canConvertToLong() || id.asLong() <= 0
          || name == null || !name.isTextual()
          || fullName != null && !fullName.isNull() && !fullName.isTextual()) {
        throw new Unreadable("lists a repository without a valid id and name", token);
      }
      out.add(new GrantedRepository(id.asLong(), name.asText(),
          fullName == null || fullName.isNull() ? null : fullName.asText()));
    }
    return out;
  }
}
