package dev.pushgate.gateway;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lock files a process that ended mid-write left in a cache. JGit (as git) takes a ref,
 * {@code packed-refs}, {@code HEAD} or {@code config} by creating {@code NAME.lock} and renames
 * it over {@code NAME} when done; a crash in between left the lock, and JGit never breaks one:
 * every later write of that name failed ("lock fail"), so each fetch's sync of the cache was
 * answered 502, for good (CI of 2026-12-07: a kill -9 just after a clone, while the cache moved
 * its refs to upstream's). No ref name ends in {@code .lock} (git check-ref-format), so every such
 * file below {@code refs} is a lock.
 */
final class StaleLocks {
  private static final Logger log = LoggerFactory.getLogger(StaleLocks.class);

  private StaleLocks() {}

  /**
   * Removes the lock files of {@code gitDir}'s refs and of its own files; only before this
   * process writes to it (the data directory's lock keeps other processes out). A failure is
   * logged, never thrown: the write that meets the lock then says so itself.
   *
   * @return how many were removed
   */
  static int remove(Path gitDir) {
    List<Path> locks = new ArrayList<>();
    List<Path> removed = new ArrayList<>();
    try (DirectoryStream<Path> own = Files.newDirectoryStream(gitDir, "*.lock");
        Stream<Path> refs = Files.walk(gitDir.resolve("refs"))) {
      own.forEach(locks::add);
      refs.filter(p -> p.getFileName().toString().endsWith(".lock")).forEach(locks::add);
      for (Path lock : locks) {
        // only a file JGit could have written: never a directory, nor a link's target
        if (Files.isRegularFile(lock, LinkOption.NOFOLLOW_LINKS) && Files.deleteIfExists(lock)) {
          removed.add(lock);
        }
      }
    } catch (NoSuchFileException e) {
      return 0;
    } catch (IOException | java.io.UncheckedIOException e) {
      log.warn("could not clear stale lock files in {}: {}", gitDir, e.toString());
      return 0;
    }
    if (!removed.isEmpty()) {
      log.warn("removed {} lock file(s) in {} that a process ending mid-write left: {}",
          removed.size(), gitDir, removed.stream().map(gitDir::relativize).toList());
    }
    return removed.size();
  }
}
