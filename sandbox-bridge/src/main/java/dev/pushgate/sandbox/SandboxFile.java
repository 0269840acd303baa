package dev.pushgate.sandbox;

import dev.pushgate.types.UntrustedText;
import java.nio.file.Path;

/**
 * A host file handed to the run read-only at a path inside the sandbox, such as the run's git
 * config at the path {@code GIT_CONFIG_GLOBAL} names. The launcher copies it into the run's
 * staging directory first, so the sandbox user can read it even when the original sits in the
 * appliance's private data directory.
 *
 * @param hostPath the file on the host
 * @param guestPath where it appears inside (absolute)
 * @param executable whether the sandbox user may run it (a program such as the Claude Code hook)
 */
public record SandboxFile(Path hostPath, String guestPath, boolean executable) {
  /** A file the sandbox user may read, not run. */
  public SandboxFile(Path hostPath, String guestPath) {
    this(hostPath, guestPath, false);
  }

  public SandboxFile {
    if (hostPath == null || !hostPath.isAbsolute()) {
      throw new IllegalArgumentException("a sandbox file needs an absolute host path: " + hostPath);
    }
    if (guestPath == null || !guestPath.startsWith("/") || UntrustedText.hasControl(guestPath)) {
      throw new IllegalArgumentException(
          "a sandbox file needs an absolute guest path: " + UntrustedText.printable(guestPath));
    }
  }

  /** The file at the same path inside as outside. */
  public static SandboxFile samePath(Path hostPath) {
    return new SandboxFile(hostPath, hostPath == null ? null : hostPath.toString());
  }

  /** A program at {@code guestPath} inside, which the sandbox user may run but not change. */
  public static SandboxFile program(Path hostPath, String guestPath) {
    return new SandboxFile(hostPath, guestPath, true);
  }
}
