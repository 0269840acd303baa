package dev.pushgate.sandbox;

/** Port: starts a command under a run's sandbox plan. */
@FunctionalInterface
public interface SandboxLauncher {
  /**
   * Starts the command. A plan whose verdict is refused is never launched, not even unwrapped.
   *
   * @throws SandboxLaunchException when the command cannot be started as planned; nothing runs
   */
  SandboxProcess launch(LaunchRequest request, SandboxListener listener)
      throws SandboxLaunchException;
}
