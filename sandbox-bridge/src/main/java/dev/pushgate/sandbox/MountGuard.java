package dev.pushgate.sandbox;

import dev.pushgate.types.UntrustedText;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Host paths a run may never be given as a mount: {@code /}, each top-level directory and a few
 * shared parents (they hold other users' files), the system trees and everything inside them, and
 * the appliance's own private directories (its data directory with the control socket, the
 * ledger key and the forge's repositories and key; the gateway's socket directory), whether the
 * mount is one of them, lies inside one or contains one. Judged on the path as written and on the
 * path the kernel resolves (symlinks followed as far as the path exists), so a link cannot lead
 * around it.
 */
public final class MountGuard {
  /** The system: a run never mounts these, nor anything inside them. */
  public static final List<String> SYSTEM_TREES =
      List.of(
          "/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/proc",
          "/run", "/sbin", "/snap", "/sys", "/usr", "/var/backups", "/var/cache",
          "/var/lock", "/var/log", "/var/mail", "/var/run", "/var/spool");

  /** Shared parents: a run may mount a directory inside them, never one of them whole. */
  public static final List<String> SHARED_PARENTS = List.of("/var/lib", "/var/tmp");

  /** Only the system trees and shared parents: what a launcher can tell without the appliance. */
  public static final MountGuard SYSTEM = new MountGuard(List.of());

  private final List<Path> privateRoots;

  /** @param privateRoots the appliance's own directories, absolute */
  public MountGuard(List<Path> privateRoots) {
    List<Path> roots = new ArrayList<>();
    for (Path p : privateRoots) {
      roots.addAll(spellings(p.toAbsolutePath().normalize()));
    }
    this.privateRoots = List.copyOf(new LinkedHashSet<>(roots));
  }

  /**
   * Refuses a path a run may not be given.
   *
   * @throws SandboxRequestException naming the field and the reason
   */
  public void check(String field, String path) {
    String why = problem(path);
    if (why != null) {
      throw new SandboxRequestException(field, field + " " + UntrustedText.printable(path) + " " + why);
    }
  }

  /** Refuses every mount field of a run. */
  public void check(RunPaths paths) {
    check("workdir", paths.workdir());
    checkOptional("agentConfigDir", paths.agentConfigDir());
    checkOptional("reposDir", paths.reposDir());
    checkOptional("attachmentsDir", paths.attachmentsDir());
    checkAll("runnerStateDirs", paths.runnerStateDirs());
    checkAll("execGrantRoots", paths.execGrantRoots());
  }

  /** Why a run may not be given {@code path}, or null when it may. */
  public String problem(String path) {
    Path literal;
    try {
      literal = Path.of(path).toAbsolutePath().normalize();
    } catch (InvalidPathException e) {
      return "is not a valid path";
    }
    for (Path p : spellings(literal)) {
      String why = problem(p, !p.equals(literal));
      if (why != null) {
        return why;
      }
    }
    return null;
  }

  private String problem(Path p, boolean resolved) {
    String via = resolved ? " (it resolves to " + p + ")" : "";
    for (String tree : SYSTEM_TREES) {
      if (p.startsWith(Path.of(tree))) {
        return "lies in the system tree " + tree + via + "; a run never mounts the system";
      }
    }
    if (p.getNameCount() <= 1) {
      return "is / or a top-level directory" + via + ", which holds the system's or other users'"
          + " files; give a directory of the run's own";
    }
    for (String shared : SHARED_PARENTS) {
      if (p.equals(Path.of(shared))) {
        return "is " + shared + via + ", which holds the system's or other users' files; give a"
            + " directory of the run's own";
      }
    }
    for (Path root : privateRoots) {
      if (p.startsWith(root) || root.startsWith(p)) {
        return (p.startsWith(root) ? "is or lies inside " : "contains ") + root + via
            + ", which is the appliance's own (control socket, keys, forge); a run never mounts it";
      }
    }
    return null;
  }

  private void checkOptional(String field, String path) {
    if (path != null) {
      check(field, path);
    }
  }

  private void checkAll(String field, List<String> paths) {
    for (int i = 0; i < paths.size(); i++) {
      check(field + "[" + i + "]", paths.get(i));
    }
  }

  /** The path as the kernel resolves it, as far as it exists (the literal one otherwise). */
  static Path resolved(Path literal) {
    List<Path> spellings = spellings(literal);
    return spellings.get(spellings.size() - 1);
  }

  /**
   * The path as written and as the kernel resolves it: the longest part that exists, with its
   * symlinks followed, then the rest as written.
   */
  static List<Path> spellings(Path literal) {
    Set<Path> out = new LinkedHashSet<>();
    out.add(literal);
    Path existing = literal;
    while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
      existing = existing.getParent();
    }
    if (existing != null) {
      try {
        Path real = existing.toRealPath();
        out.add(real.resolve(existing.relativize(literal)).normalize());
      } catch (IOException | SecurityException e) {
        // A dangling link or a path the appliance cannot read: what it names cannot be mounted.
      }
    }
    return List.copyOf(out);
  }
}
