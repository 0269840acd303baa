package dev.pushgate.sandbox;

import dev.pushgate.gitconfig.UpstreamConfigEdit;
import dev.pushgate.types.UntrustedText;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.function.Consumer;

/**
 * The launcher's half of the name-deny daemon's questions about a repository's {@code .git/config}
 * ({@code sandbox-bridge/src/main/c/config.c}): git commits a config edit by renaming {@code
 * config.lock} onto {@code config}; the daemon copies both texts and asks, one line {@code
 * judge-config ID WAS NOW PATH} (the texts in hex, {@code -} when empty; the path last, escaped as
 * in its refusal lines), and writes its copy into place only on {@code ID yes}. The one judge is
 * {@link UpstreamConfigEdit}: only a branch's upstream may change. A refusal is reported here,
 * with its reason, as a {@code file-write*} of the config ({@link RefusalReason#of}).
 */
final class RepositoryConfigQuestions {
  static final String PREFIX = "judge-config ";

  /** The longest question answered: two texts of {@link UpstreamConfigEdit#MAX_BYTES} in hex. */
  static final int MAX_LINE = 4 * UpstreamConfigEdit.MAX_BYTES + 8192;

  private RepositoryConfigQuestions() {}

  static boolean isQuestion(String line) {
    return line.startsWith(PREFIX);
  }

  /**
   * The answer line to one question (with its line break), or null when the line names no
   * question (the daemon then waits out its deadline and refuses).
   *
   * @param guest where the daemon's mount shows inside the sandbox, for the report
   */
  static String answer(String line, String guest, Consumer<SandboxViolation> onViolation) {
    String[] f = line.substring(PREFIX.length()).split(" ", 4);
    if (f.length != 4 || !f[0].matches("[0-9]{1,18}")) {
      return null;
    }
    String id = f[0];
    String target = guest + f[3];
    String why;
    if (line.length() > MAX_LINE) {
      why = "it is larger than " + UpstreamConfigEdit.MAX_BYTES / 1024 + " KiB";
    } else {
      String was = text(f[1]);
      String now = text(f[2]);
      if (was == null || now == null) {
        why = "the layer's question could not be read";
      } else {
        UpstreamConfigEdit.Refusal r = UpstreamConfigEdit.refusal(was, now);
        if (r == null) {
          return id + " yes\n";
        }
        why = r.what() + (r.name() == null ? "" : ": " + UntrustedText.quoted(utf8(r.name())));
      }
    }
    onViolation.accept(new SandboxViolation(ViolationParser.FILE_WRITE, target,
        RefusalReason.CONFIG_JUDGE + why));
    return id + " no\n";
  }

  /**
   * A name from the judged text (a byte a char) as the agent wrote it: decoded as UTF-8, so that
   * {@link UntrustedText} sees, and escapes, a U+202E rather than three Latin-1 characters.
   */
  private static String utf8(String byteChars) {
    return new String(byteChars.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8);
  }

  /** A text in hex as ISO-8859-1 (a byte a char, as git's parser reads it); null when not hex. */
  private static String text(String hex) {
    if (hex.equals("-")) {
      return "";
    }
    try {
      return new String(HexFormat.of().parseHex(hex), StandardCharsets.ISO_8859_1);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
