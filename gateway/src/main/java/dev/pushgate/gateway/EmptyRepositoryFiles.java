package dev.pushgate.gateway;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Files a bare repository may lack, written empty where empty means the same to git and JGit as
 * absent. JGit looks for each of them on every read that could need it, and a file that is not
 * there costs an exception each time (a {@code NoSuchFileException} and its native cause, a
 * {@code FileNotFoundException}): about seven for every ref read with no {@code packed-refs} and
 * two for every receive-pack's alternates, dozens per push (docs/benchmarks.md, "Exceptions and
 * opens per push"). An empty {@code packed-refs} lists no ref and an empty {@code
 * objects/info/alternates} names no other object store, to git as to JGit. {@code shallow} is
 * not one of them: git takes an empty {@code shallow} file for a shallow repository.
 */
public final class EmptyRepositoryFiles {
  /** Relative to the repository's directory. */
  private static final List<String> FILES = List.of("packed-refs", "objects/info/alternates");

  private EmptyRepositoryFiles() {}

  /** Writes each of {@link #FILES} that {@code gitDir} lacks, empty; an existing one is kept. */
  public static void write(Path gitDir) throws IOException {
    for (String name : FILES) {
      Path file = gitDir.resolve(name);
      Files.createDirectories(file.getParent());
      try {
        Files.createFile(file);
      } catch (FileAlreadyExistsException e) {
        // written by git, JGit or an earlier call: its content stands
      }
    }
  }
}
