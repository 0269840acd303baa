package dev.pushgate.sandbox;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/** Something a running sandbox reports. JSON carries the kind in {@code type}. */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.PROPERTY, property = "type")
@JsonSubTypes({
  @JsonSubTypes.Type(value = SandboxEvent.Stdout.class, name = "stdout"),
  @JsonSubTypes.Type(value = SandboxEvent.Stderr.class, name = "stderr"),
  @JsonSubTypes.Type(value = SandboxEvent.Exit.class, name = "exit"),
  @JsonSubTypes.Type(value = SandboxEvent.Starting.class, name = "starting"),
  @JsonSubTypes.Type(value = SandboxEvent.Ready.class, name = "ready"),
  @JsonSubTypes.Type(value = SandboxEvent.Killed.class, name = "killed"),
  @JsonSubTypes.Type(value = SandboxEvent.Violation.class, name = "violation")
})
public sealed interface SandboxEvent {

  /** Output on the sandboxed process's standard output. */
  record Stdout(String data) implements SandboxEvent {
    public Stdout {
      if (data == null) {
        throw new IllegalArgumentException("a stdout event needs data");
      }
    }
  }

  /** Output on the sandboxed process's standard error. */
  record Stderr(String data) implements SandboxEvent {
    public Stderr {
      if (data == null) {
        throw new IllegalArgumentException("a stderr event needs data");
      }
    }
  }

  /** The sandboxed process ended. */
  record Exit(int exitCode) implements SandboxEvent {}

  /** The sandbox is starting. */
  record Starting() implements SandboxEvent {}

  /** The sandbox accepts exec calls. */
  record Ready() implements SandboxEvent {}

  /**
   * The host killed the process (out of memory, timeout, manual stop).
   *
   * @param reason why, when known, else null
   */
  record Killed(String reason) implements SandboxEvent {}

  /** A sandbox policy was violated. */
  record Violation(SandboxViolation violation) implements SandboxEvent {
    public Violation {
      if (violation == null) {
        throw new IllegalArgumentException("a violation event needs a violation");
      }
    }
  }
}
