package dev.pushgate.sandbox;

import dev.pushgate.types.UntrustedText;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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
  /** The most of a listing read; a longer one is not judged. */
  private static final int MAX_BYTES = 4 * 1024 * 1024;
  private static final long TIMEOUT_SECONDS = 10;

  private GitConfigListing() {}

  /** git is on this host, and could not list a repository's config: nothing is judged on it. */
  static final class Unlisted extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Unlisted(String why) {
      super(why, null, false, false);
    }
  }

  /**
   * The entries of the config of the repository whose git directory is {@code gitDir}; null when
   * git is not on this host.
   *
   * @throws Unlisted when git is here and could not list it (a config it cannot read, a git too
   *     old for {@code -c safe.directory}): the git that runs later may read it all the same
   */
  static List<String> of(Path gitDir) {
    Path out = null;
    Path err = null;
    try {
      out = Files.createTempFile("pushgate-gitconfig-", ".out");
      err = Files.createTempFile("pushgate-gitconfig-", ".err");
      return list(gitDir, out, err);
    } catch (IOException e) {
      throw new Unlisted("its listing could not be read: " + e.getMessage());
    } finally {
      deleteQuietly(out);
      deleteQuietly(err);
    }
  }

  /**
   * git's output goes to files, not pipes, so that the wait's deadline holds whatever git does
   * (an include that is a FIFO, a flood on its standard error): nothing here blocks on a read.
   */
  private static List<String> list(Path gitDir, Path out, Path err) throws IOException {
    ProcessBuilder pb = new ProcessBuilder("git", "-c", "safe.directory=*",
        "--git-dir=" + gitDir, "config", "--includes", "--null", "--list")
        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
        .redirectOutput(out.toFile()).redirectError(err.toFile());
    // Nothing of the appliance's own environment chooses another repository or config.
    pb.environment().keySet().removeIf(k -> k.startsWith("GIT_"));
    pb.environment().put("LC_ALL", "C"); // its messages in English, as read below
    Process p;
    try {
      p = pb.start();
    } catch (IOException noGit) {
      return null;
    }
    try {
      if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new Unlisted("git did not list it within " + TIMEOUT_SECONDS + " s");
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new Unlisted("interrupted");
    }
    if (p.exitValue() != 0) {
      String said = new String(head(err, 4096), StandardCharsets.UTF_8).strip();
      if (said.contains("not a git repository")) {
        return List.of(); // no git takes it for a repository: nothing of it is read
      }
      throw new Unlisted("git config exited with " + p.exitValue() + (said.isEmpty() ? ""
          : ": " + UntrustedText.printable(said.lines().findFirst().orElse(""))));
    }
    if (Files.size(out) > MAX_BYTES) {
      throw new Unlisted("its listing is longer than " + MAX_BYTES + " bytes");
    }
    List<String> entries = new ArrayList<>();
    ByteArrayOutputStream entry = new ByteArrayOutputStream();
    for (byte b : Files.readAllBytes(out)) {
      if (b == 0) {
        entries.add(entry.toString(StandardCharsets.UTF_8));
        entry.reset();
      } else {
        entry.write(b);
      }
    }
    return entries;
  }

  private static byte[] head(Path file, int max) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return in.readNBytes(max);
    }
  }

  private static void deleteQuietly(Path file) {
    if (file != null) {
      try {
        Files.deleteIfExists(file);
      } catch (IOException e) {
        // a temporary file left in the temporary directory
      }
    }
  }
}
