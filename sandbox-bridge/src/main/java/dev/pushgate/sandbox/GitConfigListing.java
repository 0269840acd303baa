package dev.pushgate.sandbox;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A repository's config as git on this host reads it: every scope (system, global, the
 * repository's, includes and conditional includes followed), each entry {@code key\nvalue}, from
 * {@code git config --includes --null --list}. Asked of git itself, not parsed here, so that
 * quoting, escapes, continuations and includes are read exactly as the git that runs later
 * reads them. Listing runs nothing of the repository's (no hook, pager or fsmonitor).
 */
final class GitConfigListing {
  /** The most of a listing read; a longer one is not trusted (null: read it as the files say). */
  private static final int MAX_BYTES = 4 * 1024 * 1024;
  private static final long TIMEOUT_SECONDS = 10;

  private GitConfigListing() {}

  /**
   * The entries of the config of the repository whose git directory is {@code gitDir}; null when
   * git is not here or could not list it.
   */
  static List<String> of(Path gitDir) {
    ProcessBuilder pb = new ProcessBuilder("git", "-c", "safe.directory=*",
        "--git-dir=" + gitDir, "config", "--includes", "--null", "--list")
        .redirectErrorStream(false)
        .redirectError(ProcessBuilder.Redirect.DISCARD);
    // Nothing of the appliance's own environment chooses another repository or config.
    pb.environment().keySet().removeIf(k -> k.startsWith("GIT_"));
    Process p;
    try {
      p = pb.start();
    } catch (IOException noGit) {
      return null;
    }
    try (InputStream in = p.getInputStream()) {
      p.getOutputStream().close();
      byte[] bytes = in.readNBytes(MAX_BYTES + 1);
      if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return null;
      }
      if (p.exitValue() != 0 || bytes.length > MAX_BYTES) {
        return null;
      }
      List<String> entries = new ArrayList<>();
      ByteArrayOutputStream entry = new ByteArrayOutputStream();
      for (byte b : bytes) {
        if (b == 0) {
          entries.add(entry.toString(StandardCharsets.UTF_8));
          entry.reset();
        } else {
          entry.write(b);
        }
      }
      return entries;
    } catch (IOException e) {
      p.destroyForcibly();
      return null;
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      return null;
    }
  }
}
