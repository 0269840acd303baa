package dev.pushgate.gitconfig;

import java.io.IOException;
import java.util.Objects;

/** A repository config that is not rewritten; the file is left exactly as it was. */
public final class RepositoryConfigException extends IOException {
  public enum Reason {
    /** git itself could not parse the file (or it holds a NUL byte). */
    MALFORMED,
    /** A push URL points at the git host but does not name a safe {@code owner/repo}. */
    UNSAFE_PUSH_URL,
    /** {@code <file>.lock} exists: git (or another rewrite) is writing the file. */
    LOCKED,
    /** A symbolic link, a directory or something else that is not a plain file. */
    NOT_A_REGULAR_FILE
  }

  private final Reason reason;

  RepositoryConfigException(Reason reason, String message) {
    super(message);
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  public Reason reason() {
    return reason;
  }
}
