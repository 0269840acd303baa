package dev.pushgate.sandbox;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Port: whether a command is on the host's {@code PATH}. */
@FunctionalInterface
public interface Executables {
  /** Whether an executable regular file of this name is in one of the search directories. */
  boolean onPath(String name);

  /**
   * Searches the directories of a {@code PATH}-style value. Empty entries are ignored rather than
   * read as the current directory: the probe must not depend on where the appliance was started.
   */
  static Executables searching(String pathVariable) {
    List<Path> dirs = directories(pathVariable);
    return name -> locate(dirs, name) != null;
  }

  /**
   * Where {@code name} is in the directories of a {@code PATH}-style value, read as {@link
   * #searching} reads them: the first executable regular file of that name; null when there is
   * none.
   */
  static String locate(String pathVariable, String name) {
    return locate(directories(pathVariable), name);
  }

  private static String locate(List<Path> dirs, String name) {
    if (name == null || name.isEmpty() || name.contains("/") || name.contains(File.separator)) {
      return null;
    }
    for (Path dir : dirs) {
      Path candidate = dir.resolve(name);
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return candidate.toString();
      }
    }
    return null;
  }

  /** The absolute directories of a {@code PATH}-style value, in order. */
  private static List<Path> directories(String pathVariable) {
    List<Path> dirs = new ArrayList<>();
    if (pathVariable != null) {
      for (String entry : pathVariable.split(java.util.regex.Pattern.quote(File.pathSeparator))) {
        if (entry.isEmpty()) {
          continue;
        }
        try {
          Path dir = Path.of(entry);
          if (dir.isAbsolute()) {
            dirs.add(dir);
          }
        } catch (InvalidPathException e) {
          // An unusable PATH entry cannot hold the tool; skip it.
        }
      }
    }
    return List.copyOf(dirs);
  }

  /** Searches this process's {@code PATH}. */
  static Executables system() {
    return searching(System.getenv("PATH"));
  }
}
