package dev.pushgate.sandbox;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/**
 * Both spellings of a deny path. The kernel compares a deny rule with the resolved path, so a rule
 * written through a symlink ({@code /tmp} is {@code /private/tmp} on macOS) would never fire.
 */
final class DenySpellings {
  private DenySpellings() {}

  /**
   * The path as written and, when different, its symlink-resolved spelling. A path that does not
   * exist yet is resolved through its deepest existing ancestor, so a file created later under a
   * symlinked parent is still covered; when nothing resolves, the path is kept as written. A glob
   * has its literal leading directories resolved the same way and keeps its pattern tail, so that
   * a pattern written through a symlink to a mount matches what the kernel names there.
   */
  static List<String> of(String path) {
    String resolved = RunPaths.isGlob(path) ? resolveGlob(path) : resolve(Path.of(path));
    return resolved.equals(path) ? List.of(path) : List.of(path, resolved);
  }

  /** Every spelling of each path ({@link #of}), each once, in order. */
  static List<String> ofAll(List<String> paths) {
    return paths.stream().flatMap(p -> of(p).stream()).distinct().toList();
  }

  /** A glob with the directories before its first wildcard component resolved. */
  private static String resolveGlob(String glob) {
    int wildcard = glob.length();
    for (char c : new char[] {'*', '?'}) {
      int i = glob.indexOf(c);
      if (i >= 0) {
        wildcard = Math.min(wildcard, i);
      }
    }
    int cut = glob.lastIndexOf('/', wildcard);
    if (cut <= 0) {
      return glob;
    }
    return resolve(Path.of(glob.substring(0, cut))) + glob.substring(cut);
  }

  private static String resolve(Path path) {
    Deque<Path> rest = new ArrayDeque<>();
    Path existing = path;
    while (existing != null) {
      try {
        Path out = existing.toRealPath();
        for (Path name : rest) {
          out = out.resolve(name);
        }
        return out.toString();
      } catch (IOException | SecurityException e) {
        Path name = existing.getFileName();
        if (name == null) {
          break;
        }
        rest.push(name);
        existing = existing.getParent();
      }
    }
    return path.toString();
  }
}
