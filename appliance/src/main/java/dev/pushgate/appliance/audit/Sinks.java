package dev.pushgate.appliance.audit;

import dev.pushgate.appliance.store.AuditSink;
import dev.pushgate.appliance.store.ChainedRecord;
import java.io.IOException;
import java.util.List;

/** Every configured sink, in turn; the first failure is thrown once all were tried. */
public final class Sinks implements AuditSink {
  private final List<AuditSink> sinks;

  public Sinks(List<AuditSink> sinks) {
    this.sinks = List.copyOf(sinks);
  }

  public boolean isEmpty() {
    return sinks.isEmpty();
  }

  @Override
  public void write(List<ChainedRecord> records) throws IOException {
    IOException first = null;
    for (AuditSink s : sinks) {
      try {
        s.write(records);
      } catch (IOException e) {
        if (first == null) {
          first = new IOException(s + ": " + e.getMessage(), e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  @Override
  public void close() throws IOException {
    for (AuditSink s : sinks) {
      s.close();
    }
  }

  @Override
  public String toString() {
    return sinks.isEmpty() ? "none" : String.join(", ", sinks.stream().map(Object::toString).toList());
  }
}
