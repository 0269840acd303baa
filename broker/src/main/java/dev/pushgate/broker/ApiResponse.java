package dev.pushgate.broker;

import dev.pushgate.types.UntrustedText;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import okhttp3.Headers;

/** One answer from GitHub, body read in full (and bounded). */
record ApiResponse(int code, Headers headers, byte[] body, String requestId) {

  /** GitHub's {@code message} field, made one line; empty when the body has none. */
  String githubMessage(ObjectMapper json) {
    try {
      JsonNode root = json.readTree(body);
      if (root != null && root.path("message").isTextual()) {
        return UntrustedText.oneLine(root.path("message").asText(), 200);
      }
    } catch (IOException e) {
      // not JSON (an HTML error page, say): no message to pass on
    }
    return "";
  }

  /** {@code "404 Not Found"}-style status with GitHub's message, when there is one. */
  String status(ObjectMapper json) {
    String message = githubMessage(json);
    return message.isEmpty() ? "HTTP " + code : code + " " + message;
  }
}
