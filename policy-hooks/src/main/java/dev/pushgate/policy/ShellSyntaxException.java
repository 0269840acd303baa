package dev.pushgate.policy;

/** A command line the shell parser cannot read; the offset is 0-based within the parsed text. */
final class ShellSyntaxException extends Exception {
  private final int offset;

  ShellSyntaxException(String message, int offset) {
    super(message);
    this.offset = offset;
  }

  int offset() {
    return offset;
  }
}
