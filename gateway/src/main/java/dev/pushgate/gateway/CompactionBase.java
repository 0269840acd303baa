package dev.pushgate.gateway;

import dev.pushgate.types.RepoSlug;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Collection;
import java.util.Set;
import java.util.stream.Collectors;
import org.eclipse.jgit.internal.storage.file.Pack;

/**
 * The packs a cache's last full compaction wrote, by file name, in a file beside the repository.
 * A roll-up ({@link PackRollUp}) walks down to them and no further, so the file must never name a
 * pack that is not one of them: it is replaced whole after each full compaction, and anything
 * that does not match the packs on disk (a crash between the compaction and the file, a pack
 * gone) makes the next compaction a full one. Written only under the repository's lock.
 */
final class CompactionBase {
  static final String FILE = "pushgate-compaction-base";

  private final CacheRepositories repositories;

  CompactionBase(CacheRepositories repositories) {
    this.repositories = repositories;
  }

  /** The names of the base's pack files, or none. */
  Set<String> read(RepoSlug repo) throws IOException {
    try {
      return Files.readAllLines(file(repo), StandardCharsets.UTF_8).stream()
          .filter(l -> !l.isBlank()).collect(Collectors.toUnmodifiableSet());
    } catch (NoSuchFileException e) {
      return Set.of();
    }
  }

  /** Makes {@code packs} the base. */
  void write(RepoSlug repo, Collection<Pack> packs) throws IOException {
    Path file = file(repo);
    Path tmp = file.resolveSibling(FILE + ".tmp");
    StringBuilder names = new StringBuilder();
    for (Pack p : packs) {
      names.append(p.getPackFile().getName()).append('\n');
    }
    Files.writeString(tmp, names, StandardCharsets.UTF_8);
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  private Path file(RepoSlug repo) {
    return repositories.directoryOf(repo).resolve(FILE);
  }
}
