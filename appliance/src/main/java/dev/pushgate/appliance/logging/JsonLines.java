package dev.pushgate.appliance.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.LayoutBase;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pushgate.types.Redaction;
import java.time.Instant;

/**
 * {@code --log-format json}: one JSON object a line, secrets cut out as in the text format. The
 * key-value pairs of SLF4J's fluent API ({@code addKeyValue}) and the MDC become fields of their
 * own ({@code run}, {@code repository}, {@code ref}, {@code decision}, {@code code} on decision
 * lines), so that a log pipeline can filter on them; they never replace the fixed fields.
 */
public final class JsonLines extends LayoutBase<ILoggingEvent> {
  private final ObjectMapper json = new ObjectMapper();

  @Override
  public String doLayout(ILoggingEvent event) {
    ObjectNode n = json.createObjectNode();
    n.put("ts", Instant.ofEpochMilli(event.getTimeStamp()).toString());
    n.put("level", event.getLevel().toString());
    n.put("logger", event.getLoggerName());
    n.put("message", Redaction.redact(event.getFormattedMessage()));
    event.getMDCPropertyMap().forEach((k, v) -> field(n, k, v));
    if (event.getKeyValuePairs() != null) {
      event.getKeyValuePairs().forEach(kv -> field(n, kv.key, kv.value));
    }
    IThrowableProxy t = event.getThrowableProxy();
    if (t != null) {
      n.put("error", Redaction.redact(ThrowableProxyUtil.asString(t)));
    }
    return n.toString() + "\n";
  }

  private static final java.util.Set<String> FIXED =
      java.util.Set.of("ts", "level", "logger", "message", "error");

  private static void field(ObjectNode n, String key, Object value) {
    if (key == null || value == null || FIXED.contains(key)) {
      return;
    }
    n.put(key, Redaction.redact(String.valueOf(value)));
  }
}
