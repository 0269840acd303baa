package dev.pushgate.sandbox;

import dev.pushgate.types.UntrustedText;

/**
 * The unprivileged user a sandbox starts as when pushgate itself runs as root. As root, a process
 * inside bubblewrap would still be real root to every host file it can reach; so bwrap is started
 * through {@code setpriv} as this user instead, and the run's writable mounts are lent to it.
 * By default it is an id of the launch's own ({@link OwnSandboxUsers}); one the operator names is
 * shared by every launch and every host process that runs as it, all of which can read the run's
 * tokens.
 *
 * @param uid the user id; never 0
 * @param gid the group id; never 0
 */
public record SandboxUser(int uid, int gid) {
  /** {@code nobody:nogroup} on Debian and most distributions: shared, never a default. */
  public static final SandboxUser NOBODY = new SandboxUser(65534, 65534);

  public SandboxUser {
    if (uid <= 0 || gid <= 0) {
      throw new IllegalArgumentException(
          "the sandbox user must be an unprivileged user, not uid " + uid + " gid " + gid);
    }
  }

  /**
   * Reads {@code UID} or {@code UID:GID} (the group defaults to the user id).
   *
   * @throws IllegalArgumentException naming the value
   */
  public static SandboxUser parse(String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException("a sandbox user is UID or UID:GID, not an empty value");
    }
    String[] parts = text.strip().split(":", -1);
    try {
      if (parts.length == 1) {
        int uid = Integer.parseInt(parts[0]);
        return new SandboxUser(uid, uid);
      }
      if (parts.length == 2) {
        return new SandboxUser(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
      }
    } catch (NumberFormatException e) {
      // fall through to the message below
    }
    throw new IllegalArgumentException(
        "a sandbox user is UID or UID:GID with numbers, not: " + UntrustedText.printable(text));
  }

  @Override
  public String toString() {
    return uid + ":" + gid;
  }
}
