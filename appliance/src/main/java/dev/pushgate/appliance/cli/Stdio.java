package dev.pushgate.appliance.cli;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * The process's standard output and error as a command writes them: UTF-8 whatever the locale
 * says (so that ✔, ✘ and a sandboxed command's own text survive a POSIX locale), flushed at each
 * line.
 */
final class Stdio {
  private Stdio() {}

  static PrintStream out() {
    return new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
  }

  /** Standard error, where pushgate's own lines always begin a line ({@link RunStderr}). */
  static PrintStream err() {
    return new RunStderr(new FileOutputStream(FileDescriptor.err));
  }
}
