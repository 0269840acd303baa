package dev.pushgate.gateway;

import dev.pushgate.types.RepoSlug;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The packs a cache's last full compaction wrote (its base), and the roll-ups written since
 * (its levels, oldest first), by file name, in a file beside the repository. A roll-up
 * ({@link PackRollUp}) walks down to the base and the levels it keeps and no further, so the file
 * must never name a pack that is not what it says: it is replaced whole after each compaction
 * (a full one names no level), and anything that does not match the packs on disk (a crash
 * between a compaction and the file, a pack gone) makes the next compaction a full one, or, for a
 * level, one that rolls every level up again. Written only under the repository's lock.
 *
 * <p>One line per pack: a base pack's name alone (as the file held before levels were recorded),
 * a level's after {@value #LEVEL}.
 */
final class CompactionBase {
  static final String FILE = "pushgate-compaction-base";
  static final String LEVEL = "level ";

  /**
   * @param levels the roll-ups since the base, oldest first: each holds what the refs reached
   *     when it was written that the base and the levels before it did not, so the base and any
   *     first levels together hold every object their commits need
   */
  record Layout(Set<String> base, List<String> levels) {
    Layout {
      base = Set.copyOf(base);
      levels = List.copyOf(levels);
    }
  }

  private final CacheRepositories repositories;

  CompactionBase(CacheRepositories repositories) {
    this.repositories = repositories;
  }

  /** The base's and the levels' pack file names; none of either when there is no file. */
  Layout read(RepoSlug repo) throws IOException {
    List<String> lines;
    try {
      lines = Files.readAllLines(file(repo), StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return new Layout(Set.of(), List.of());
    }
    Set<String> base = new HashSet<>();
    List<String> levels = new ArrayList<>();
    for (String line : lines) {
      if (line.startsWith(LEVEL)) {
        levels.add(line.substring(LEVEL.length()));
      } else if (!line.isBlank()) {
        base.add(line);
      }
    }
    return new Layout(base, levels);
  }

  /** Makes {@code layout} the record. */
  void write(RepoSlug repo, Layout layout) throws IOException {
    Path file = file(repo);
    Path tmp = file.resolveSibling(FILE + ".tmp");
    StringBuilder lines = new StringBuilder();
    for (String name : layout.base()) {
      lines.append(name).append('\n');
    }
    for (String name : layout.levels()) {
      lines.append(LEVEL).append(name).append('\n');
    }
    Files.writeString(tmp, lines, StandardCharsets.UTF_8);
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  private Path file(RepoSlug repo) {
    return repositories.directoryOf(repo).resolve(FILE);
  }
}
