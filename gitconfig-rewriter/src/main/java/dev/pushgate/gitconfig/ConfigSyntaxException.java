package dev.pushgate.gitconfig;

/** git would refuse the file: "bad config line N". */
final class ConfigSyntaxException extends Exception {
  private final int line;

  ConfigSyntaxException(int line) {
    super("bad config line " + line);
    this.line = line;
  }

  int line() {
    return line;
  }
}
