package dev.pushgate.sandbox;

import dev.pushgate.types.Glob;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A protected-path pattern: {@code *} and {@code ?} match within one path component, a component
 * that is exactly {@code **} matches any number of them.
 */
final class PathGlob {
  /** {@code *} and {@code ?} within a component; {@code **} is read here, component by component. */
  private static final Glob.Dialect DIALECT =
      new Glob.Dialect('/', true, true, Glob.DoubleStar.WHOLE_SEGMENTS, false, false);

  private PathGlob() {}

  /**
   * Whether the pattern may match {@code root} itself or a path below it. Answers yes when unsure
   * (a {@code **} before the end of the root): the caller refuses rather than leave a protected
   * path writable.
   */
  static boolean mayMatchAtOrBelow(String glob, String root) {
    List<String> g = components(glob);
    List<String> r = components(root);
    for (int i = 0; i < r.size(); i++) {
      if (i >= g.size()) {
        return false; // The pattern ends above the root: it names an ancestor.
      }
      if (g.get(i).equals("**")) {
        return true;
      }
      if (!componentMatches(g.get(i), r.get(i))) {
        return false;
      }
    }
    return true;
  }

  private static boolean componentMatches(String pattern, String name) {
    return Pattern.compile(Glob.compile(pattern, DIALECT).regex()).matcher(name).matches();
  }

  private static List<String> components(String path) {
    List<String> out = new ArrayList<>();
    for (String c : path.split("/")) {
      if (!c.isEmpty()) {
        out.add(c);
      }
    }
    return out;
  }
}
