package dev.pushgate.sandbox;

import java.util.List;

/**
 * A command that was not started: the plan refuses it, the host cannot wrap it, or the sandbox
 * could not be set up. Nothing of the command ran.
 */
public final class SandboxLaunchException extends Exception {
  private static final long serialVersionUID = 1L;

  private final List<String> waysOut;

  public SandboxLaunchException(String message, List<String> waysOut) {
    super(message);
    this.waysOut = waysOut == null ? List.of() : List.copyOf(waysOut);
  }

  public SandboxLaunchException(String message, Throwable cause) {
    super(message, cause);
    this.waysOut = List.of();
  }

  /** What an operator can do about it; empty when there is nothing but fixing the cause. */
  public List<String> waysOut() {
    return waysOut;
  }
}
