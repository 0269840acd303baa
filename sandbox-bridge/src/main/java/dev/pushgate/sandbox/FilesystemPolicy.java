package dev.pushgate.sandbox;

import java.util.List;

/**
 * The file-system rules a launcher applies, with every deny path in its literal and its
 * symlink-resolved spelling (globs as written).
 *
 * @param writableRoots directories the run may write: writable bind mounts and runner state dirs
 * @param readDeny secret paths no run may read
 * @param writeDeny paths no run may write, even inside a writable root: protected checkouts, shell
 *     rc files, git hooks and config, the agent runner's config
 * @param writeDenyGlobs file-name patterns no run may write inside a writable root
 */
public record FilesystemPolicy(
    List<String> writableRoots,
    List<String> readDeny,
    List<String> writeDeny,
    List<String> writeDenyGlobs) {

  public FilesystemPolicy {
    writableRoots = List.copyOf(writableRoots);
    readDeny = List.copyOf(readDeny);
    writeDeny = List.copyOf(writeDeny);
    writeDenyGlobs = List.copyOf(writeDenyGlobs);
  }
}
