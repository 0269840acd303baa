package dev.pushgate.forge;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.jgit.errors.ConfigInvalidException;
import org.eclipse.jgit.internal.storage.file.FileSnapshot;
import org.eclipse.jgit.storage.file.FileBasedConfig;
import org.eclipse.jgit.util.FS;

/**
 * The ids of the forge's repositories, read from each one's config file and kept while that file
 * is unchanged. Every git request and every mint looks its repositories up: a look-up is now a
 * {@code stat} of the file rather than its read and parse. JGit's {@link FileSnapshot} decides
 * "unchanged" (time, size, inode, and a file written too recently to tell is read again), so a
 * repository removed and made again under the same name is read afresh.
 */
final class ForgeRepositoryIds {
  /** Where in a repository's config its id is. */
  static final String SECTION = "pushgate";
  static final String ID_KEY = "repositoryId";

  private record Known(FileSnapshot snapshot, long id) {}

  private final ConcurrentHashMap<Path, Known> known = new ConcurrentHashMap<>();

  /** The id the config of the repository at {@code dir} holds; empty without one. */
  OptionalLong of(Path dir) {
    File file = dir.resolve("config").toFile();
    Known k = known.get(dir);
    if (k != null && !k.snapshot().isModified(file)) {
      return OptionalLong.of(k.id());
    }
    FileSnapshot snapshot = FileSnapshot.save(file); // before the read: a later write is seen
    FileBasedConfig config = new FileBasedConfig(null, file, FS.DETECTED);
    try {
      config.load();
    } catch (IOException | ConfigInvalidException e) {
      known.remove(dir);
      return OptionalLong.empty();
    }
    long id = config.getLong(SECTION, null, ID_KEY, 0);
    if (id == 0) {
      known.remove(dir);
      return OptionalLong.empty();
    }
    known.put(dir, new Known(snapshot, id));
    return OptionalLong.of(id);
  }
}
