package dev.pushgate.gateway;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/** A cache repository's pack files and compaction record, as the compaction's tests read them. */
final class CacheFiles {
  private CacheFiles() {}

  /** The files of {@code gitDir}'s pack directory whose names end in {@code suffix}. */
  static List<Path> packFiles(Path gitDir, String suffix) throws IOException {
    try (Stream<Path> files = Files.list(gitDir.resolve("objects/pack"))) {
      return files.filter(f -> f.getFileName().toString().endsWith(suffix)).toList();
    }
  }

  static Path keepOf(Path pack) {
    String name = pack.getFileName().toString();
    return pack.resolveSibling(name.substring(0, name.length() - ".pack".length()) + ".keep");
  }

  /** The base's pack names in the compaction record; none without a record. */
  static Set<String> base(Path gitDir) throws IOException {
    return Set.copyOf(record(gitDir).stream()
        .filter(l -> !l.isBlank() && !l.startsWith(CompactionBase.LEVEL)).toList());
  }

  /** The roll-ups the record keeps, oldest first. */
  static List<String> levels(Path gitDir) throws IOException {
    return record(gitDir).stream().filter(l -> l.startsWith(CompactionBase.LEVEL))
        .map(l -> l.substring(CompactionBase.LEVEL.length())).toList();
  }

  private static List<String> record(Path gitDir) throws IOException {
    Path file = gitDir.resolve(CompactionBase.FILE);
    return Files.exists(file) ? Files.readAllLines(file) : List.of();
  }
}
