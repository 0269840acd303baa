package dev.pushgate.policy;

import java.util.List;
import java.util.Locale;
import com.google.re2j.Pattern;
import dev.pushgate.types.Glob;
import dev.pushgate.types.WrittenGlob;

/**
 * A glob of a content rule, matched against a pushed file's path ({@code paths}) or its name, the
 * last path segment ({@code files}). {@code *} matches within one segment, {@code ?} one character
 * of a segment, {@code **} any number of whole segments. Matching ignores case: a checkout on a
 * case-insensitive disk makes {@code .ENV} the same file as {@code .env}, and the rules fail closed.
 * Matched by RE2/J, in time linear in the path: the path is the agent's to choose.
 *
 * <p>A glob written with a leading {@code !} is an exception: a list of globs ({@link
 * #listMatches}) matches what one of its globs matches and none of its exceptions, whatever their
 * order ({@code [".env.*", "!.env.example"]}). The same language names a workspace's {@code
 * denyWriteGlobs}, which the sandbox's name-deny layer matches the same way.
 */
public final class ContentGlob extends WrittenGlob {
  /** {@code *} and {@code ?} within a segment, {@code **} whole segments, case ignored. */
  static final Glob.Dialect DIALECT =
      new Glob.Dialect('/', true, true, Glob.DoubleStar.WHOLE_SEGMENTS, false, true);

  private final boolean exception;
  private final Pattern pattern;

  /** {@code written} is {@code glob}, or {@code !} and {@code glob} for an exception. */
  private ContentGlob(String written, String glob) {
    super(written, glob, DIALECT);
    this.exception = !glob.equals(written);
    this.pattern = Pattern.compile(compiled().regex());
  }

  /** A glob over whole paths ({@code src/**}{@code /*.py}). */
  public static ContentGlob path(String written) {
    String glob = withoutBang(written);
    if (glob.startsWith("/") || glob.endsWith("/") || glob.contains("//")) {
      throw new IllegalArgumentException("a path glob has no leading or trailing '/' and no"
          + " empty segment: " + glob);
    }
    for (String segment : glob.split("/")) {
      if (segment.contains("**") && !segment.equals("**")) {
        throw new IllegalArgumentException("'**' must be a whole path segment: " + glob);
      }
    }
    return new ContentGlob(written, glob);
  }

  /** A glob over file names, the last segment of a path ({@code *.pem}). */
  public static ContentGlob name(String written) {
    String glob = withoutBang(written);
    if (glob.contains("/")) {
      throw new IllegalArgumentException("a file-name glob has no '/' (use paths for that): "
          + glob);
    }
    if (glob.contains("**")) {
      throw new IllegalArgumentException("'**' means nothing in a file-name glob: " + glob);
    }
    return new ContentGlob(written, glob);
  }

  /** The glob an exception excepts ({@code !.env.example}: {@code .env.example}), checked. */
  private static String withoutBang(String written) {
    String glob = written.startsWith("!") ? written.substring(1) : written;
    check(glob);
    if (glob.startsWith("!")) {
      throw new IllegalArgumentException("one '!' makes an exception; '!!' means nothing: "
          + written);
    }
    return glob;
  }

  /**
   * Checks a list of globs as one: an exception excepts from the list's other globs, so a list of
   * exceptions alone would match nothing.
   *
   * @throws IllegalArgumentException naming the first exception, when the list has no other glob
   */
  public static void checkList(List<ContentGlob> globs) {
    if (!globs.isEmpty() && globs.stream().allMatch(ContentGlob::exception)) {
      throw new IllegalArgumentException("'" + globs.get(0) + "' is an exception, and the list"
          + " has no glob for it to except from (add one, such as '.env.*')");
    }
  }

  /**
   * Whether {@code s} matches the list: one of its globs matches it and none of its exceptions,
   * on one of the spellings {@link #matches} tries. Each spelling is judged whole, so a name
   * whose checked-out spelling is excepted ({@code ".env.example\u200c"} is {@code
   * .env.example} on macOS) is still matched by the spelling the exception does not cover.
   */
  public static boolean listMatches(List<ContentGlob> globs, String s) {
    for (String spelling : spellings(s)) {
      boolean in = false;
      boolean excepted = false;
      for (ContentGlob g : globs) {
        if (g.pattern.matcher(spelling).matches()) {
          excepted |= g.exception;
          in |= !g.exception;
        }
      }
      if (in && !excepted) {
        return true;
      }
    }
    return false;
  }

  /** Whether this glob is an exception, written with a leading {@code !}. */
  public boolean exception() {
    return exception;
  }

  private static void check(String glob) {
    if (glob.isEmpty()) {
      throw new IllegalArgumentException("empty glob");
    }
    for (int i = 0; i < glob.length(); i++) {
      char c = glob.charAt(i);
      if (c < 0x20 || c == 0x7f) {
        throw new IllegalArgumentException(
            String.format("glob has a control character %#04x", (int) c));
      }
      if (c == '[' || c == ']' || c == '\\' || c == '{' || c == '}') {
        throw new IllegalArgumentException("unsupported character '" + c + "' in glob " + glob
            + " (only *, ? and ** are special)");
      }
    }
  }

  /**
   * Whether {@code s} (a path, or a file name for a name glob) matches, ignoring case, as written
   * or as a checkout would name the file ({@link #asCheckedOut}). For an exception: whether it
   * would except {@code s}; a list is judged by {@link #listMatches}.
   */
  public boolean matches(String s) {
    return spellings(s).stream().anyMatch(v -> pattern.matcher(v).matches());
  }

  /** {@code s} as written and as checked out, each also lower-cased. */
  private static List<String> spellings(String s) {
    String seen = asCheckedOut(s);
    return List.of(s.toLowerCase(Locale.ROOT), s, seen, seen.toLowerCase(Locale.ROOT));
  }

  /**
   * The name a checkout may give a path on some disk: each segment without the code points HFS+
   * ignores (zero-width joiners, direction marks, BOM: git's own list for {@code .git}), without
   * trailing spaces and dots (Windows drops them: {@code ".env "} is {@code .env}), in Unicode NFC
   * (macOS decomposes). Look-alike letters of other scripts are other names on every disk and
   * are not folded.
   */
  static String asCheckedOut(String path) {
    StringBuilder out = new StringBuilder(path.length());
    for (String segment : path.split("/", -1)) {
      if (out.length() > 0 || path.startsWith("/")) {
        out.append('/');
      }
      StringBuilder seg = new StringBuilder(segment.length());
      segment.codePoints().filter(c -> !hfsIgnored(c)).forEach(seg::appendCodePoint);
      int end = seg.length();
      while (end > 0 && (seg.charAt(end - 1) == ' ' || seg.charAt(end - 1) == '.')) {
        end--;
      }
      String kept = end == 0 ? seg.toString() : seg.substring(0, end);
      out.append(java.text.Normalizer.normalize(kept, java.text.Normalizer.Form.NFC));
    }
    return out.toString();
  }

  /** The code points HFS+ ignores in names (git's is_hfs_dotgit list). */
  private static boolean hfsIgnored(int c) {
    return c == 0x200c || c == 0x200d || c == 0x200e || c == 0x200f
        || (c >= 0x202a && c <= 0x202e) || (c >= 0x206a && c <= 0x206f) || c == 0xfeff;
  }
}
