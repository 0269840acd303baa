package dev.pushgate.appliance.audit;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Which audit sinks {@code serve} writes to: a JSON-lines file, syslog at {@code HOST:PORT},
 * both, or neither (null).
 */
public record SinkSettings(Path file, String syslog) {
  public static final SinkSettings NONE = new SinkSettings(null, null);

  public SinkSettings {
    if (syslog != null) {
      SyslogSink.parse(syslog); // a bad address is named before anything starts
    }
  }

  /** Opens the sinks; {@code host} names this appliance in syslog messages. */
  public Sinks open(String host) throws IOException {
    List<dev.pushgate.appliance.store.AuditSink> sinks = new ArrayList<>();
    if (file != null) {
      sinks.add(new FileSink(file));
    }
    if (syslog != null) {
      sinks.add(new SyslogSink(SyslogSink.parse(syslog), host));
    }
    return new Sinks(sinks);
  }
}
