package dev.pushgate.appliance.logging;

import ch.qos.logback.classic.pattern.MessageConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.pushgate.types.Redaction;

/** {@code %msg} with secrets cut out. */
public final class RedactedMessage extends MessageConverter {
  @Override
  public String convert(ILoggingEvent event) {
    return Redaction.redact(super.convert(event));
  }
}
