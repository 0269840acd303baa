package dev.pushgate.policy;

/**
 * One redirection of a command: the operator as written ({@code >}, {@code 2>>}, {@code <<-}), its
 * target word, and for a here-document the body, which is only known once the parser has read
 * past the end of the line.
 */
final class Redirect {
  private final String op;
  private final String target;
  private String body;

  Redirect(String op, String target) {
    this.op = op;
    this.target = target;
  }

  /** The operator without its file descriptor prefix: {@code 2>&} gives {@code >&}. */
  String op() {
    int i = 0;
    if (!op.isEmpty() && op.charAt(0) == '{') {
      i = op.indexOf('}') + 1;
    }
    while (i < op.length() && Character.isDigit(op.charAt(i))) {
      i++;
    }
    return op.substring(i);
  }

  String written() {
    return op;
  }

  String target() {
    return target;
  }

  boolean isHeredoc() {
    return op().startsWith("<<") && !op().equals("<<<");
  }

  /** The here-document body, the here-string, or null for other redirections. */
  String input() {
    if (op().equals("<<<")) {
      return target;
    }
    return body;
  }

  void body(String body) {
    this.body = body;
  }
}
