package dev.pushgate.sandbox;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The launch's refusals as lines a program inside the sandbox can read: the run's {@code
 * PostToolUse} hook ({@code pushgate-hook --post-tool-use}) tells the agent from here why its last
 * command failed, which the command's own {@code Permission denied} does not say. One line a
 * refusal, {@link RefusalReason#line}. The file is the launcher's, in its staging directory, bound
 * read-only at {@link #GUEST_PATH}: the agent reads it and cannot write it. Bounded: past {@link
 * #MAX_BYTES} nothing more is written (the events still go to the launcher's listener).
 */
final class ViolationLog implements SandboxListener {
  private static final Logger LOG = LoggerFactory.getLogger(ViolationLog.class);

  static final String GUEST_PATH = "/run/pushgate/violations";

  /** The variable that names {@link #GUEST_PATH} in the run's environment. */
  static final String VARIABLE = "PUSHGATE_VIOLATIONS";

  static final long MAX_BYTES = 1 << 20;

  private final SandboxListener next;
  private Path file;
  private long written;

  ViolationLog(SandboxListener next) {
    this.next = next == null ? SandboxListener.NULL : next;
  }

  /** Makes the empty log in {@code staging} and writes every refusal from now on to it. */
  synchronized Path create(Path staging) throws IOException {
    Path f = staging.resolve("violations");
    Files.writeString(f, "", StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW);
    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r--r--"));
    file = f;
    return f;
  }

  @Override
  public void onEvent(SandboxEvent event) {
    if (event instanceof SandboxEvent.Violation v) {
      append(RefusalReason.line(v.violation()) + "\n");
    }
    next.onEvent(event);
  }

  private synchronized void append(String line) {
    byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
    if (file == null || written + bytes.length > MAX_BYTES) {
      return;
    }
    try {
      Files.write(file, bytes, StandardOpenOption.APPEND);
      written += bytes.length;
    } catch (IOException e) {
      // The staging directory is gone: the launch has ended.
      LOG.debug("cannot append to the violation log: {}", e.toString());
    }
  }
}
