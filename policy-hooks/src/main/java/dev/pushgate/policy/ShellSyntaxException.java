package dev.pushgate.policy;

/** A command line the shell parser cannot read; the offset is 0-based within the parsed text. */
final class ShellSyntaxException extends Exception {
  private final int offset;

  ShellSyntaxException(String message, int offset) {
    // Refusing a line is an expected outcome, not a bug: the message and offset say it all, and
    // a stack trace from deep in the recursive parser would cost more than the parse.
    super(message, null, false, false);
    this.offset = offset;
  }

  int offset() {
    return offset;
  }
}
