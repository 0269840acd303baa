package dev.pushgate.gateway;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code .keep} files a process that ended mid-receive or mid-fetch left in a cache. JGit
 * writes one beside each pack it is receiving or fetching ("jgit receive-pack …", "jgit fetch …")
 * and deletes it when the push is answered or the fetch done; a crash in between left it for good,
 * and a kept pack is never compacted (its objects, a refused push's among them, stayed in the
 * cache). Only JGit's own are removed: a {@code .keep} an operator wrote stays.
 */
final class StaleKeeps {
  private static final Logger log = LoggerFactory.getLogger(StaleKeeps.class);
  private static final String[] WRITTEN_BY_JGIT = {"jgit receive-pack", "jgit fetch "};
  /** More than any message JGit writes: a larger file is not one of them. */
  private static final long LARGEST_MESSAGE = 4096;

  private StaleKeeps() {}

  /**
   * Removes JGit's {@code .keep} files from {@code packDir}; a failure is logged, never thrown
   * (a stale {@code .keep} only keeps a pack from compaction).
   *
   * @return how many were removed
   */
  static int remove(Path packDir) {
    int removed = 0;
    try (DirectoryStream<Path> keeps = Files.newDirectoryStream(packDir, "pack-*.keep")) {
      for (Path keep : keeps) {
        if (writtenByJgit(keep)) {
          Files.deleteIfExists(keep);
          removed++;
        }
      }
    } catch (NoSuchFileException e) {
      return 0;
    } catch (IOException e) {
      log.warn("could not clear stale .keep files in {}: {}", packDir, e.toString());
    }
    if (removed > 0) {
      log.info("removed {} .keep file(s) in {} that a process ending mid-push or mid-fetch left",
          removed, packDir);
    }
    return removed;
  }

  private static boolean writtenByJgit(Path keep) throws IOException {
    if (!Files.isRegularFile(keep) || Files.size(keep) > LARGEST_MESSAGE) {
      return false;
    }
    // ISO-8859-1: any bytes read, and JGit's prefixes are ASCII
    String message = new String(Files.readAllBytes(keep), StandardCharsets.ISO_8859_1);
    for (String prefix : WRITTEN_BY_JGIT) {
      if (message.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }
}
