package dev.pushgate.gateway;

import dev.pushgate.types.RepoSlug;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.RepositoryCache;
import org.eclipse.jgit.lib.StoredConfig;
import org.eclipse.jgit.util.FileUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the fetch cache keeps each upstream repository's bare repository, and the lock each is
 * written under: what the sync ({@link UpstreamCache}), the landed pushes' ref writer
 * ({@link LandedRefs}) and the compaction ({@link CacheCompaction}) share.
 */
final class CacheRepositories {
  private static final Logger log = LoggerFactory.getLogger(CacheRepositories.class);
  private final Path root;
  private final ConcurrentHashMap<String, ReentrantLock> locks = new ConcurrentHashMap<>();
  /**
   * The caches whose stale {@code .keep} and lock files this process removed, at its first open
   * of each: before that no receive or fetch of this process can have written one, and the data
   * directory's lock says no other process serves it. Another first open of the same cache waits
   * for the removal ({@link ConcurrentHashMap#computeIfAbsent}), so it never removes the
   * {@code .keep} of a receive that opened the cache after it.
   */
  private final ConcurrentHashMap<String, Integer> swept = new ConcurrentHashMap<>();

  CacheRepositories(Path root) {
    this.root = root;
  }

  /**
   * Opens the cache of {@code repo}, creating it when missing. The caller closes it. The instance
   * is shared by concurrent requests (JGit's {@link RepositoryCache}), so its pack list and refs
   * are read once, not once per request.
   */
  Repository open(RepoSlug repo) throws IOException {
    Path dir = directoryOf(repo);
    if (!Files.isRegularFile(dir.resolve("HEAD"))) {
      ReentrantLock lock = lockOf(repo);
      lock.lock();
      try {
        create(dir);
      } finally {
        lock.unlock();
      }
    }
    swept.computeIfAbsent(repo.key(), k -> {
      preservedPacksDirectory(dir);
      return StaleLocks.remove(dir) + StaleKeeps.remove(dir.resolve("objects/pack"));
    });
    Repository db = RepositoryCache.open(CacheRepository.key(dir.toFile()), true);
    StoredConfig config = db.getConfig();
    // In memory, once per instance (and again if JGit reloads the file), also for caches made
    // before these were written at creation: the cache is compacted by CacheCompaction under its
    // lock, never by JGit's background auto-gc after a receive.
    if (config.getInt("protocol", null, "version", -1) != 0) {
      config.setBoolean("receive", null, "autogc", false);
      config.setInt("gc", null, "auto", 0);
      config.setInt("gc", null, "autopacklimit", 0);
      // Protocol v0 lists the refs in the answer to the first request; v2 needs a second
      // request (ls-refs), which doubled the time of the sync made before every push. v2's ref
      // prefixes would only pay off on repositories with very many refs outside heads and tags.
      config.setInt("protocol", null, "version", 0);
    }
    return db;
  }

  /**
   * Opens the cache of {@code repo} if there is one, never creating it: for readers that are not
   * serving a push. The caller closes it.
   */
  Optional<Repository> openExisting(RepoSlug repo) throws IOException {
    if (!Files.isRegularFile(directoryOf(repo).resolve("HEAD"))) {
      return Optional.empty();
    }
    return Optional.of(open(repo));
  }

  /**
   * The repositories whose cache this data directory holds, most recently written first: what a
   * warm-up at start-up opens. Directories that do not name a repository are skipped.
   */
  List<RepoSlug> existing() throws IOException {
    if (!Files.isDirectory(root)) {
      return List.of();
    }
    List<Path> dirs = new ArrayList<>();
    try (DirectoryStream<Path> owners = Files.newDirectoryStream(root, Files::isDirectory)) {
      for (Path owner : owners) {
        try (DirectoryStream<Path> names = Files.newDirectoryStream(owner, "*.git")) {
          for (Path dir : names) {
            if (Files.isRegularFile(dir.resolve("HEAD"))) {
              dirs.add(dir);
            }
          }
        }
      }
    }
    dirs.sort(Comparator.comparing(CacheRepositories::lastWritten).reversed());
    List<RepoSlug> slugs = new ArrayList<>();
    for (Path dir : dirs) {
      try {
        slugs.add(RepoSlug.parse(dir.getParent().getFileName() + "/" + dir.getFileName()));
      } catch (IllegalArgumentException notARepository) {
        // not one of ours (the directory names come from validated slugs)
      }
    }
    return slugs;
  }

  private static FileTime lastWritten(Path dir) {
    try {
      return Files.getLastModifiedTime(dir.resolve("objects").resolve("pack"));
    } catch (IOException e) {
      return FileTime.fromMillis(0);
    }
  }

  /**
   * Makes the cache at {@code dir}, whole or not at all: it is made under a temporary name beside
   * it and renamed into place, so that a creation cut short (descriptors or disk run out, the
   * process killed) leaves no directory that JGit can neither open nor create again (attack of
   * 2026-12-07: a cache left with refs and objects but no HEAD answered every fetch 502, also
   * after a restart). What such a cut left, at the cache's name (by an older version) or under a
   * temporary one, held nothing yet (a cache is opened only once it has a HEAD) and is removed.
   * Under the repository's lock; the data directory's lock keeps other processes out.
   */
  private static void create(Path dir) throws IOException {
    if (Files.isRegularFile(dir.resolve("HEAD"))) {
      return;
    }
    Files.createDirectories(dir.getParent());
    String made = "." + dir.getFileName() + ".new-";
    try (DirectoryStream<Path> cut = Files.newDirectoryStream(dir.getParent(), made + "*")) {
      for (Path leftover : cut) {
        removeHalfMade(leftover);
      }
    }
    removeHalfMade(dir);
    Path fresh = Files.createTempDirectory(dir.getParent(), made);
    try {
      try (Repository created = new FileRepository(fresh.toFile())) {
        created.create(true);
        StoredConfig config = created.getConfig();
        // Objects received from a client stay unreachable until upstream accepts them; never
        // let a gc race a push that is being forwarded.
        config.setBoolean("receive", null, "autogc", false);
        config.setInt("gc", null, "auto", 0);
        config.setInt("gc", null, "autopacklimit", 0);
        config.save();
      }
      EmptyRepositoryFiles.write(fresh);
      Files.createDirectories(fresh.resolve("objects/pack/preserved"));
      Files.move(fresh, dir, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      removeHalfMade(fresh);
    }
  }

  private static void removeHalfMade(Path dir) throws IOException {
    if (Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      log.warn("removing {}: a cache whose creation was cut short", dir);
      FileUtils.delete(dir.toFile(), FileUtils.RECURSIVE | FileUtils.SKIP_MISSING);
    }
  }

  /**
   * Makes the cache's {@code objects/pack/preserved}, empty, where it is missing (caches made
   * before it was made too). JGit looks there for every object the cache lacks, for a pack a gc
   * preserved ({@code ObjectDirectory.has}), and a missing directory costs two exceptions each
   * time: a push's collision check asks once for each new object it holds, on the push's path
   * (docs/benchmarks.md, "The cache's misses"). An empty directory holds no pack, as a missing
   * one; git lists no pack below {@code objects/pack} ({@code git count-objects -v} counts the
   * directory as garbage, {@code git fsck} is clean). A failure is logged: JGit still works.
   */
  private static void preservedPacksDirectory(Path dir) {
    try {
      Files.createDirectories(dir.resolve("objects/pack/preserved"));
    } catch (IOException e) {
      log.warn("could not make {}: {}", dir.resolve("objects/pack/preserved"), e.toString());
    }
  }

  ReentrantLock lockOf(RepoSlug repo) {
    return locks.computeIfAbsent(repo.key(), k -> new ReentrantLock());
  }

  Path directoryOf(RepoSlug repo) {
    // RepoSlug forbids separators and dot segments, so this stays under root.
    return root.resolve(repo.owner().toLowerCase(Locale.ROOT))
        .resolve(repo.name().toLowerCase(Locale.ROOT) + ".git");
  }
}
