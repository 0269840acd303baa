package dev.pushgate.appliance.cli;

import dev.pushgate.types.Redaction;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.regex.Pattern;

/**
 * A failure as an operator reads it: plain words, no Java class names (which say nothing to an
 * operator and read like a crash), redacted since a message may quote a database URL or a token.
 */
final class Failure {
  /** {@code java.io.IOException: }, {@code org.x.FooException}, {@code (SQLException)}, … */
  private static final Pattern CLASS_NAME = Pattern.compile(
      "(?:\\b[a-z][a-z0-9_]*\\.)+[A-Z]\\w*(?:Exception|Error)\\b:?\\s*"
          + "|\\b[A-Z]\\w*(?:Exception|Error)\\b:?\\s*");

  private Failure() {}

  static String message(Throwable e) {
    return Redaction.redact(plain(describe(e)));
  }

  /** {@code text} without any Java exception class name in it. */
  static String plain(String text) {
    String s = CLASS_NAME.matcher(text).replaceAll("").replace("()", "").strip();
    return s.isEmpty() ? "failed, without saying why" : s;
  }

  private static String describe(Throwable e) {
    Throwable t = e;
    // a wrapper's message is its cause's class and message: say the cause's instead
    while (t.getCause() != null && t.getCause() != t
        && (t.getMessage() == null || t.getMessage().equals(t.getCause().toString()))) {
      t = t.getCause();
    }
    if (t instanceof NoSuchFileException f) {
      return f.getFile() + ": no such file or directory";
    }
    if (t instanceof AccessDeniedException f) {
      return f.getFile() + ": permission denied";
    }
    if (t instanceof NotDirectoryException f) {
      return f.getFile() + ": not a directory";
    }
    if (t instanceof FileSystemException f && f.getReason() != null) {
      return f.getFile() + ": " + f.getReason();
    }
    if (t instanceof java.net.UnknownHostException) {
      return "unknown host: " + t.getMessage();
    }
    return t.getMessage() == null ? "" : t.getMessage();
  }
}
