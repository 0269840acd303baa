package dev.pushgate.appliance.cli;

import java.io.File;
import java.util.concurrent.TimeUnit;

/**
 * Carries a resize of the caller's terminal into the sandboxed terminal. The shell's terminal is
 * script's, inside the sandbox, and the sandbox is a session of its own (against TIOCSTI), so the
 * kernel's SIGWINCH reaches this process only: it is passed on to script, which copies the new
 * size onto the shell's terminal.
 */
final class TerminalResize {
  private TerminalResize() {}

  /** Passes every SIGWINCH of this process on to the {@code script} processes under {@code p}. */
  @SuppressWarnings("sunapi")
  static void forward(Process p) {
    try {
      sun.misc.Signal.handle(new sun.misc.Signal("WINCH"), s -> p.toHandle().descendants()
          .filter(d -> d.info().command().map(c -> c.endsWith("/script")).orElse(false))
          .forEach(d -> signal(d.pid())));
    } catch (IllegalArgumentException | UnsupportedOperationException e) {
      // No SIGWINCH on this JVM: the terminal keeps its first size.
    }
  }

  private static void signal(long pid) {
    try {
      Process kill = new ProcessBuilder("/bin/sh", "-c", "kill -WINCH " + pid)
          .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .redirectError(ProcessBuilder.Redirect.DISCARD).start();
      kill.waitFor(5, TimeUnit.SECONDS);
    } catch (java.io.IOException e) {
      // The terminal keeps its size; nothing else depends on it.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
