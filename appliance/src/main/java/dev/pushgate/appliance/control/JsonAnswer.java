package dev.pushgate.appliance.control;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pushgate.gateway.ErrorAnswer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/** A JSON answer, one line, as the control API and the approvals page give it. */
public final class JsonAnswer {
  private JsonAnswer() {}

  public static void send(ObjectMapper json, Response response, Callback callback, int status,
      JsonNode body) {
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    String text;
    try {
      text = json.writeValueAsString(body) + "\n";
    } catch (JsonProcessingException e) {
      text = ErrorAnswer.PUSHGATE.body(500, "internal error") + "\n";
    }
    Content.Sink.write(response, true, text, callback);
  }
}
