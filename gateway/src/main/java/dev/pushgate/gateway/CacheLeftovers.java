package dev.pushgate.gateway;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The spool files a fetch or a receive writes in a cache repository while it runs: the streamed
 * fetch's copy of upstream's pack ({@code OWNER/NAME.git/streamed-*.pack}, {@link PackSpool})
 * and the pack being parsed into the cache ({@code objects/incoming_*.pack} and its {@code
 * .idx}, {@link CachePackParser} and JGit's own parser), and a compaction's new pack and index
 * ({@code objects/pack/gc_*} and {@code rollup_*}, ending {@code _tmp}). Each is deleted when its
 * request or compaction ends, or at the JVM's orderly exit; an appliance killed mid-fetch
 * (crash, SIGKILL) leaves them, and
 * every such restart would keep up to a whole pack more on disk. Swept once at start-up, before
 * the gateway serves, when no fetch or receive can be using them; nothing else is touched.
 */
final class CacheLeftovers {
  private static final Logger log = LoggerFactory.getLogger(CacheLeftovers.class);

  private CacheLeftovers() {}

  /** Deletes the leftovers in every cache repository under {@code root}; returns how many. */
  static int sweep(Path root) {
    List<Path> gone = new ArrayList<>();
    for (Path owner : directories(root, "*")) {
      for (Path repository : directories(owner, "*.git")) {
        delete(repository, "streamed-*.pack", gone);
        delete(repository.resolve("objects"), "incoming_*.{pack,idx}", gone);
        // a compaction's pack and index being written (JGit's GC's, a roll-up's)
        delete(repository.resolve("objects/pack"), "{gc,rollup}_*.*_tmp", gone);
      }
    }
    if (!gone.isEmpty()) {
      log.info("cache {}: removed {} spool files left by a fetch or push the appliance did not"
          + " finish (stopped without its orderly exit): {}", root, gone.size(),
          gone.stream().map(root::relativize).toList());
    }
    return gone.size();
  }

  private static void delete(Path dir, String glob, List<Path> gone) {
    for (Path file : entries(dir, glob, p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS))) {
      try {
        Files.deleteIfExists(file);
        gone.add(file);
      } catch (IOException e) {
        log.warn("cache: cannot remove leftover spool file {}: {}", file, e.toString());
      }
    }
  }

  private static List<Path> directories(Path dir, String glob) {
    return entries(dir, glob, p -> Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS));
  }

  /** {@code dir}'s entries matching {@code glob} and {@code kind}; none if it is no directory. */
  private static List<Path> entries(Path dir, String glob, Predicate<Path> kind) {
    List<Path> out = new ArrayList<>();
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      return out;
    }
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, glob)) {
      for (Path p : entries) {
        if (kind.test(p)) {
          out.add(p);
        }
      }
    } catch (IOException e) {
      log.warn("cache: cannot list {} for leftover spool files: {}", dir, e.toString());
    }
    return out;
  }
}
