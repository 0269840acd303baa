package dev.pushgate.sandbox;

import dev.pushgate.types.UntrustedText;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a line of a sandboxed command's standard error as bubblewrap denials show up there: the
 * {@code EROFS}, {@code EACCES} and {@code EPERM} texts of coreutils, shells, git, Python and Node,
 * {@code No such file or directory} for a path the sandbox hides, and curl's and git's words for
 * a host that cannot be reached without the proxy. Anything else is not a violation.
 */
final class ViolationParser {
  static final String FILE_WRITE = "file-write*";
  static final String FILE_READ = "file-read*";
  static final String SYSCALL = "syscall";
  /**
   * A path the sandbox shows that the system would not open as asked, the program's words naming
   * no write: the file's own permissions for the sandbox's user, or a write the name-deny layer
   * refused (the layer reports those itself, with their reason).
   */
  static final String FILE_ACCESS = "file-access*";
  static final String NETWORK = "network-outbound";

  private static final String READ_ONLY = "read-only file system";
  private static final String DENIED = "permission denied";
  private static final String NOT_PERMITTED = "operation not permitted";
  private static final String MISSING = "no such file or directory";

  // An apostrophe inside a word ("can't") opens no quotation.
  private static final Pattern QUOTED =
      Pattern.compile("(?<![A-Za-z])['\"‘`]([^'\"’`]+)['\"’`]");
  private static final Pattern WRITE_WORDS = Pattern.compile(
      "\\b(creat\\w*|touch|writ\\w*|remov\\w*|mkdir|make directory|renam\\w*|mov\\w*|lock\\w*"
          + "|unlink\\w*|delet\\w*|chmod|chown|truncat\\w*|append\\w*|sav\\w*|cop\\w*|install\\w*"
          + "|erofs)\\b");
  private static final Pattern LN_FAILED =
      Pattern.compile("(?:^|[/\\s])ln: failed to create (?:hard|symbolic) link ['\"‘]");
  private static final Pattern RESOLVE = Pattern.compile("could not resolve host:? ([^\\s,;'\"]+)");
  private static final Pattern CONNECT = Pattern.compile("failed to connect to ([^\\s,;'\"]+) port");

  private ViolationParser() {}

  /** Whether {@code action} is one this parser gives a line about a file. */
  static boolean isFileAction(String action) {
    return FILE_WRITE.equals(action) || FILE_READ.equals(action) || FILE_ACCESS.equals(action);
  }

  /**
   * The violation a line reports, if any.
   *
   * @param line one line of standard error, without its line break
   * @param denials what the sandbox hides and blocks; decides whether {@code No such file or
   *     directory} is a denial or just a missing file, and whether {@code Is a directory} is a
   *     blocked deny path
   */
  static Optional<SandboxViolation> parse(String line, Denials denials) {
    if (line == null || line.isBlank()) {
      return Optional.empty();
    }
    String lower = line.toLowerCase(Locale.ROOT);
    Matcher m = RESOLVE.matcher(lower);
    if (m.find()) {
      return Optional.of(violation(NETWORK, host(line, m.start(1), m.end(1)), line));
    }
    m = CONNECT.matcher(lower);
    if (m.find()) {
      return Optional.of(violation(NETWORK, host(line, m.start(1), m.end(1)), line));
    }
    if (lower.contains("network is unreachable")) {
      return Optional.of(violation(NETWORK, "", line));
    }
    // A refusal whose path cannot be read gives no reason: a reason is about a path, and one
    // without it ("file-read* \"\": the sandbox hides this path") only misleads.
    if (lower.contains(READ_ONLY) || lower.contains("erofs")) {
      String target = target(line, phraseAt(lower, READ_ONLY));
      return target.isEmpty() ? Optional.empty() : Optional.of(violation(FILE_WRITE, target, line));
    }
    if (lower.contains(DENIED) || lower.contains("eacces")) {
      String target = target(line, phraseAt(lower, DENIED));
      return target.isEmpty() ? Optional.empty()
          : Optional.of(violation(refused(lower, target, denials), target, line));
    }
    if (lower.contains(NOT_PERMITTED) || lower.contains("eperm")) {
      String target = target(line, phraseAt(lower, NOT_PERMITTED));
      String action = target.isEmpty() ? SYSCALL : refused(lower, target, denials);
      return Optional.of(violation(action, target, line));
    }
    if (lower.contains(MISSING) || lower.contains("enoent")) {
      String target = target(line, phraseAt(lower, MISSING));
      boolean write = writes(lower);
      // A write is denied when the directory it goes in is hidden; a read when the path is.
      if (!target.isEmpty() && (denials.hidden(target) || write && denials.hidden(parent(target)))) {
        return Optional.of(violation(write ? FILE_WRITE : FILE_READ, target, line));
      }
    }
    if (lower.contains("is a directory") || lower.contains("device or resource busy")) {
      boolean busy = !lower.contains("is a directory");
      String target =
          target(line, phraseAt(lower, busy ? "device or resource busy" : "is a directory"));
      if (!target.isEmpty() && (busy ? denials.mountedOver(target) : denials.blocked(target))) {
        return Optional.of(violation(FILE_WRITE, target, line));
      }
    }
    return Optional.empty();
  }

  /** What a launch hides and blocks; paths may be relative to the command's working directory. */
  interface Denials {
    /** Nothing hidden, nothing blocked: only the unambiguous texts are violations. */
    Denials NONE = new Denials() {
      @Override
      public boolean hidden(String path) {
        return false;
      }

      @Override
      public boolean blocked(String path) {
        return false;
      }
    };

    /** Whether the sandbox hides this path: it exists on the host but not inside. */
    boolean hidden(String path);

    /** Whether this path is a deny path the sandbox blocks with an empty read-only directory. */
    boolean blocked(String path);

    /**
     * Whether the sandbox mounts something over this deny path: a placeholder, or the path itself
     * bound read-only (.git/config). Replacing a mount point (git writes its config by renaming
     * config.lock onto it) fails with {@code Device or resource busy}.
     */
    default boolean mountedOver(String path) {
      return blocked(path);
    }
  }

  private static SandboxViolation violation(String action, String target, String line) {
    return new SandboxViolation(action, target, UntrustedText.printable(line));
  }

  /**
   * What an {@code EACCES} or {@code EPERM} on {@code target} was, decided on what the sandbox does
   * with the path rather than on the failing program's words, which often name no verb (bash's
   * {@code .env: Permission denied}, Python's {@code PermissionError: … '.env'}): a read of a path
   * the sandbox hides (its cover is a mode-000 directory); else a write when the words say so;
   * else an access to a path the sandbox shows, which its own permissions or the name-deny layer
   * refused (a read-only mount gives {@code EROFS}, never these). Never a hidden-path read of a
   * path that is not hidden.
   */
  private static String refused(String lower, String target, Denials denials) {
    if (writes(lower)) {
      return FILE_WRITE;
    }
    return denials.hidden(target) ? FILE_READ : FILE_ACCESS;
  }

  private static boolean writes(String lower) {
    return WRITE_WORDS.matcher(lower).find();
  }

  private static int phraseAt(String lower, String phrase) {
    int at = lower.indexOf(phrase);
    return at < 0 ? lower.length() : at;
  }

  /**
   * The path a line names: the last quoted text ({@code cannot touch '/x'}, {@code Permission
   * denied: '/x'}, {@code cannot move 'a' to 'b'}), the first for coreutils' {@code ln} ({@code
   * failed to create hard link 'new' => 'old'}), else the path-like word just before {@code ":
   * <phrase>"} ({@code cat: /x: No such file}), else nothing.
   */
  static String target(String line, int phraseAt) {
    String quoted = null;
    Matcher q = QUOTED.matcher(line);
    // coreutils' ln names the link it failed to make first ('id_rsa' => 'x'); every other tool
    // read here names the path written last (mv's 'a' to 'b', Python's 'a' -> 'b').
    boolean first = LN_FAILED.matcher(line).find();
    while (q.find()) {
      quoted = q.group(1);
      if (first) {
        break;
      }
    }
    if (quoted != null && !quoted.isBlank()) {
      return quoted.strip();
    }
    String before = line.substring(0, Math.min(phraseAt, line.length()));
    if (before.endsWith(": ")) {
      String head = before.substring(0, before.length() - 2);
      int space = head.lastIndexOf(' ');
      String word = head.substring(space + 1);
      // Unquoted, only a word that looks like a path: "ping: socket: ..." names no file.
      if (!word.isEmpty() && !word.endsWith(":") && (word.contains("/") || word.contains("."))) {
        return word;
      }
    }
    return "";
  }

  private static String parent(String path) {
    int slash = path.lastIndexOf('/');
    return slash < 0 ? "." : slash == 0 ? "/" : path.substring(0, slash);
  }

  private static String host(String line, int start, int end) {
    String h = line.substring(start, end);
    while (!h.isEmpty() && ".:)".indexOf(h.charAt(h.length() - 1)) >= 0) {
      h = h.substring(0, h.length() - 1);
    }
    return h;
  }
}
