package dev.pushgate.appliance.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;

/**
 * One JSON object a line, every character past ASCII escaped: an agent's text (a ref, a command,
 * a reason) may hold bidi overrides or line separators, which a terminal showing the line would
 * obey. Escaped, the line parses to the very same text and draws as it is.
 */
final class JsonLines {
  private static final ObjectWriter WRITER = new ObjectMapper()
      .writer().with(JsonGenerator.Feature.ESCAPE_NON_ASCII);

  private JsonLines() {}

  static String of(JsonNode node) {
    try {
      return WRITER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write a JSON line", e); // a tree always writes
    }
  }
}
