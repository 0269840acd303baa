package dev.pushgate.appliance.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.LayoutBase;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;

/** {@code --log-format json}: one JSON object a line, secrets cut out as in the text format. */
public final class JsonLines extends LayoutBase<ILoggingEvent> {
  private final ObjectMapper json = new ObjectMapper();

  @Override
  public String doLayout(ILoggingEvent event) {
    ObjectNode n = json.createObjectNode();
    n.put("ts", Instant.ofEpochMilli(event.getTimeStamp()).toString());
    n.put("level", event.getLevel().toString());
    n.put("logger", event.getLoggerName());
    n.put("message", Redaction.redact(event.getFormattedMessage()));
    IThrowableProxy t = event.getThrowableProxy();
    if (t != null) {
      n.put("error", Redaction.redact(ThrowableProxyUtil.asString(t)));
    }
    return n.toString() + "\n";
  }
}
