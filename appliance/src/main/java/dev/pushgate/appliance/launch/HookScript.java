package dev.pushgate.appliance.launch;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

/** The {@code pushgate-hook} script this build carries, written out for a launch or a person. */
public final class HookScript {
  /**
   * Where the hook is documented to be (docs/claude-code.md), and where a launch mounts it
   * read-only inside the sandbox, so the same settings work on the host and inside.
   */
  public static final String GUEST_PATH = "/opt/pushgate/bin/pushgate-hook";

  private HookScript() {}

  /** Writes {@code pushgate-hook} into {@code dir}, mode 0755, atomically; returns its path. */
  public static Path write(Path dir) throws IOException {
    Path target = dir.resolve("pushgate-hook");
    try (InputStream script = HookScript.class.getResourceAsStream(
        "/dev/pushgate/policy/dist/pushgate-hook")) {
      if (script == null) {
        throw new IllegalStateException("this build of pushgate carries no pushgate-hook");
      }
      Files.createDirectories(dir);
      Path tmp = Files.createTempFile(dir, ".pushgate-hook", ".tmp");
      Files.copy(script, tmp, StandardCopyOption.REPLACE_EXISTING);
      Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
      Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
    return target;
  }
}
