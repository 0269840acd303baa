package dev.pushgate.sandbox;

/**
 * Receives a launched command's events in order: {@code starting}, {@code ready}, output and
 * {@code violation} events, then {@code killed} (when the host stopped it) and {@code exit}. Calls
 * never overlap; an exception thrown here is logged and ignored.
 */
@FunctionalInterface
public interface SandboxListener {
  /** Ignores every event. */
  SandboxListener NULL = event -> { /* Do nothing. */ };

  void onEvent(SandboxEvent event);
}
