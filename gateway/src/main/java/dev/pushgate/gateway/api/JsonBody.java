package dev.pushgate.gateway.api;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.util.Optional;

/**
 * A request body read as one JSON object, strictly: a duplicated key is refused (GitHub and the
 * judge could take different copies), as are trailing tokens, deep nesting and huge bodies.
 */
final class JsonBody {
  /** Larger bodies are not read: the judged routes carry small JSON documents. */
  static final int MAX_BYTES = 1 << 20;
  static final int MAX_DEPTH = 64;

  private static final ObjectMapper JSON = JsonMapper.builder(JsonFactory.builder()
          .streamReadConstraints(StreamReadConstraints.builder()
              .maxNestingDepth(MAX_DEPTH).maxStringLength(MAX_BYTES).build())
          .build())
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .build();

  private JsonBody() {}

  /** The body as a JSON object, or empty when it is empty, too large, malformed or not an object. */
  static Optional<JsonNode> object(byte[] body) {
    if (body.length == 0 || body.length > MAX_BYTES) {
      return Optional.empty();
    }
    try {
      JsonNode n = JSON.readTree(body);
      return n != null && n.isObject() ? Optional.of(n) : Optional.empty();
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** A text field of {@code node}, or empty when absent, null or not text. */
  static Optional<String> text(JsonNode node, String field) {
    JsonNode v = node == null ? null : node.get(field);
    return v != null && v.isTextual() ? Optional.of(v.asText()) : Optional.empty();
  }
}
