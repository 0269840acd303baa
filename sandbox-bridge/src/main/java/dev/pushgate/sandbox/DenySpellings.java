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
   * The path as written and, when different, its symlink-resolved spelling. A glob stays as
   * written. A path that does not exist yet is resolved through its deepest existing ancestor, so
   * a file created later under a symlinked parent is still covered; when nothing resolves, the
   * path is kept as written.
   */
  static List<String> of(String path) {
    if (RunPaths.isGlob(path)) {
      return List.of(path);
    }
    String resolved = resolve(Path.of(path));
    return resolved.equals(path) ? List.of(path) : List.of(path, resolved);
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
