package dev.pushgate.bench;

import dev.pushgate.testkit.GitRun;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A working copy that makes one small commit at a time and pushes its HEAD to one branch of one
 * URL with one environment (a run's, or the direct baseline's).
 */
final class Worktree {
  final Path dir;
  final GitRun git;
  final String url;
  final String ref;
  private static final java.util.concurrent.atomic.AtomicLong SEQUENCE =
      new java.util.concurrent.atomic.AtomicLong();

  private Worktree(Path dir, GitRun git, String url, String ref) {
    this.dir = dir;
    this.git = git;
    this.url = url;
    this.ref = ref;
  }

  /** A local clone sharing {@code template}'s objects (no network), on its {@code main}. */
  static Worktree cloneOf(GitRun git, Path template, Path dir, String url, String ref)
      throws IOException, InterruptedException {
    git.in(dir.getParent(), "clone", "-q", "--shared", template.toString(),
        dir.getFileName().toString()).ok();
    return new Worktree(dir, git, url, ref);
  }

  Worktree as(GitRun other, String otherUrl, String otherRef) {
    return new Worktree(dir, other, otherUrl, otherRef);
  }

  /** One new commit changing one small file (not timed). */
  void commit() throws IOException, InterruptedException {
    long n = SEQUENCE.incrementAndGet();
    Path f = dir.resolve("notes").resolve(dir.getFileName() + ".txt");
    Files.createDirectories(f.getParent());
    Files.writeString(f, "note " + n + " of " + dir.getFileName() + "\n");
    git.in(dir, "add", "notes").ok();
    git.in(dir, "commit", "-q", "-m", "note " + n).ok();
  }

  /** {@code git [options] push URL HEAD:REF}, timed by {@link Git}. */
  GitRun.Result push(String... gitOptions) throws IOException, InterruptedException {
    List<String> args = new ArrayList<>(List.of(gitOptions));
    args.addAll(List.of("push", url, "HEAD:" + ref));
    return git.in(dir, args.toArray(String[]::new));
  }
}
