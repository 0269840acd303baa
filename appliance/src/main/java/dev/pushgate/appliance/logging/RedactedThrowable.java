package dev.pushgate.appliance.logging;

import ch.qos.logback.classic.pattern.ThrowableProxyConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.pushgate.types.Redaction;

/** Stack traces with secrets cut out of every message in them. */
public final class RedactedThrowable extends ThrowableProxyConverter {
  @Override
  public String convert(ILoggingEvent event) {
    return Redaction.redact(super.convert(event));
  }
}
