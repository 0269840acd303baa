package dev.pushgate.sandbox;

import dev.pushgate.types.UntrustedText;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Writable mounts that would open a read-only directory. bubblewrap mounts parents first, so a
 * read-only mount below a writable one, as written, stays read-only, and a protected path below a
 * writable mount is mounted read-only over it; but it resolves each source through its symlinks,
 * so a writable mount whose path the kernel resolves to a read-only directory, or to one around
 * it, makes that directory writable at another path (a runner state directory that was a symlink
 * to the workdir made a plan run's workspace writable). A pair is accepted only when bubblewrap's
 * reading of the paths as written puts the read-only one over the writable one, as its direct
 * child: deeper, the run could rename a directory on the way (only a mount point itself cannot
 * be renamed) and leave its own in the read-only one's place on the host. A directory is never
 * mounted both writable and read-only. Besides, a runner state directory, writable in every mode,
 * may not lie inside a read-only mount other than the agent's config directory (a plan run could
 * write the workspace, its {@code .git} with it), and no writable mount lies inside a protected
 * path.
 */
final class MountOverlaps {
  /** What a path of a run is to the sandbox. */
  enum Kind {
    WRITABLE,
    READ_ONLY,
    /** Read-only, and a runner state directory may lie inside it. */
    AGENT_CONFIG,
    /** Write-denied in every mode: read-only at each of its spellings inside a writable mount. */
    PROTECTED,
    /**
     * Named by the request but not mounted (a harness-bash run's agentConfigDir, repositories and
     * attachments; a directory that does not exist yet): no writable mount may reach it at all.
     */
    UNMOUNTED;

    boolean readOnly() {
      return this != WRITABLE;
    }
  }

  /**
   * One path of a run.
   *
   * @param field the request's field, for the refusal (or a name, for a plan's mounts)
   */
  record Mount(String field, String path, Kind kind) {
    /** Where the sandbox holds it read-only: as written; a protected one's resolved path too. */
    List<String> readOnlyAt() {
      return kind == Kind.PROTECTED ? DenySpellings.of(path) : List.of(path);
    }
  }

  private MountOverlaps() {}

  /**
   * Refuses the first writable mount that would open a read-only path.
   *
   * @param stateDirs which writable mounts are runner state directories (by field)
   * @throws SandboxRequestException naming the writable mount's field
   */
  static void check(List<Mount> mounts, List<String> stateDirs) {
    Function<String, List<Path>> places = placesOnce();
    for (Mount w : mounts) {
      if (w.kind().readOnly()) {
        continue;
      }
      for (Mount r : mounts) {
        String why = r.kind().readOnly()
            ? problem(w.path(), r, stateDirs.contains(w.field()), places) : null;
        if (why != null) {
          throw new SandboxRequestException(w.field(), w.field() + " "
              + UntrustedText.printable(w.path()) + " " + why);
        }
      }
    }
  }

  /**
   * Why {@code writable}, mounted writable, would open the read-only path {@code r}; null when
   * it would not.
   *
   * @param state {@code writable} is a runner state directory
   */
  static String problem(String writable, Mount r, boolean state) {
    return problem(writable, r, state, GitPlaces::of);
  }

  /**
   * Where git keeps and finds each read-only root's repositories ({@link GitPlaces}), asked of
   * git once a root for all the writable mounts it is judged against.
   */
  static Function<String, List<Path>> placesOnce() {
    Map<String, List<Path>> known = new HashMap<>();
    return root -> known.computeIfAbsent(root, GitPlaces::of);
  }

  /** As {@link #problem(String, Mount, boolean)}, with {@code places} of each read-only root. */
  static String problem(String writable, Mount r, boolean state,
      Function<String, List<Path>> places) {
    Path wr;
    Path rr;
    try {
      wr = MountGuard.resolved(Path.of(writable).toAbsolutePath());
      rr = MountGuard.resolved(Path.of(r.path()).toAbsolutePath());
    } catch (InvalidPathException e) {
      return null; // refused as a path elsewhere
    }
    String what = (r.kind() == Kind.PROTECTED ? "the protected path " : "the read-only "
        + r.field() + " ") + UntrustedText.printable(r.path())
        + (rr.toString().equals(r.path()) ? "" : " (it resolves to " + rr + ")");
    String via = wr.toString().equals(writable) ? "" : "resolves to " + wr + ", which ";
    if (r.kind() == Kind.UNMOUNTED) {
      if (!rr.startsWith(wr) && !wr.startsWith(rr)) {
        return null;
      }
      return via + (rr.equals(wr) ? "is " : rr.startsWith(wr) ? "contains " : "lies inside ")
          + "the " + r.field() + " " + UntrustedText.printable(r.path()) + ", which this run does"
          + " not mount (a harness-bash run mounts its workdir only; a missing directory is not"
          + " mounted): the run could write it, and a later run would be given what it left"
          + " there; give a directory that neither is, contains nor lies inside it";
    }
    String link = symlinkOnTheWay(writable, r.path());
    if (link != null) {
      return "reaches " + what + " through the symbolic link " + UntrustedText.printable(link)
          + ", which the run could replace with a directory of its own; name the directory it"
          + " leads to instead";
    }
    if (rr.equals(wr) && r.readOnlyAt().contains(writable)) {
      return "is " + what + ": a directory is mounted once, writable or read-only; give each its"
          + " own directory";
    }
    if (rr.equals(wr)) {
      return via + "is " + what + ": mounted writable, it would make that directory writable"
          + " through another path; give a directory that neither is nor contains it, as the"
          + " kernel resolves both";
    }
    if (rr.startsWith(wr)) {
      // The read-only path lies inside the writable mount: safe only when the sandbox holds it
      // read-only where the writable mount shows it, and the run cannot move it away.
      Path below = wr.relativize(rr);
      if (r.readOnlyAt().stream().noneMatch(at -> writtenAs(at, writable, below))) {
        return via + "contains " + what + ": mounted writable, it would make that directory"
            + " writable through another path; give a directory that does not contain it, as"
            + " the kernel resolves both";
      }
      if (below.getNameCount() > 1) {
        // Only the read-only mount point itself cannot be renamed: a directory on the way can,
        // and the run would leave its own directory in the read-only one's place on the host.
        return "contains " + what + " " + below.getNameCount() + " levels down: the run could"
            + " rename a directory on the way and leave its own in that one's place; give a"
            + " directory whose direct child it is, or one that does not contain it";
      }
    }
    if (wr.startsWith(rr)) {
      if (r.kind() == Kind.PROTECTED) {
        return via + "lies inside " + what + ", which a run never writes; give a directory"
            + " outside it";
      }
      Path below = rr.relativize(wr);
      if (!writtenAs(writable, r.path(), below) || state && r.kind() != Kind.AGENT_CONFIG) {
        return via + "lies inside " + what + ": mounted writable, it would let the run write"
            + " inside that directory; give a directory outside it"
            + (state ? " (a runner's state may live in agentConfigDir, never in the workdir, the"
                + " repositories or the attachments)" : ", as the kernel resolves both");
      }
    }
    return gitDirectoryProblem(writable, wr, rr, r, places);
  }

  /**
   * The first symbolic link on the way from {@code root} down to {@code path}, as written, when
   * {@code path} lies below {@code root}; null otherwise. The run may replace anything below a
   * writable mount that is not a mount point, a link included.
   */
  private static String symlinkOnTheWay(String root, String path) {
    if (!path.startsWith(root + "/")) {
      return null;
    }
    Path at = Path.of(root);
    for (Path name : Path.of(root).relativize(Path.of(path))) {
      at = at.resolve(name);
      if (Files.isSymbolicLink(at)) {
        return at.toString();
      }
    }
    return null;
  }

  /**
   * A read-only repository is written, or made to run a program on the host, through where git
   * keeps and finds it ({@link GitPlaces}): refused when the writable mount lies inside one of
   * those places (a runner state directory in the config directory's own {@code .git}, or its
   * {@code hooks}), or holds one that lies outside the read-only mount (a {@code .git} file's
   * {@code gitdir:}, a {@code commondir}, an alternates store, a link inside the git directory,
   * a {@code core.hooksPath}).
   */
  private static String gitDirectoryProblem(String writable, Path wr, Path rr, Mount r,
      Function<String, List<Path>> placesOf) {
    List<Path> places;
    try {
      places = placesOf.apply(r.path());
    } catch (GitConfigListing.Unlisted e) {
      return "is mounted writable beside the read-only " + r.field() + " "
          + UntrustedText.printable(r.path()) + ", a repository whose config git could not list"
          + " (" + e.getMessage() + "), so what it names cannot be judged; fix the repository's"
          + " config, or give the run no writable mount";
    }
    for (Path place : places) {
      boolean holds = !place.startsWith(rr) && place.startsWith(wr);
      if (holds || wr.startsWith(place)) {
        return (wr.toString().equals(writable) ? "" : "resolves to " + wr + ", which ")
            + (holds ? "holds " : "lies inside ") + place + ", where git keeps or finds a"
            + " repository of the read-only " + r.field() + " " + UntrustedText.printable(r.path())
            + " (its git directory, a link in it, an object store, a path its config names):"
            + " mounted writable, it would let the run rewrite that repository or plant what git"
            + " on the host runs; keep those places out of every writable mount";
      }
    }
    return null;
  }

  /**
   * Whether {@code inner}, as written (the very string bubblewrap is given), is {@code outer} or
   * lies below it at {@code below}: a trailing slash, a doubled one or a {@code ..} is not
   * read as the same place, as bubblewrap's parents-first order does not read it so either.
   */
  private static boolean writtenAs(String inner, String outer, Path below) {
    if (below.toString().isEmpty()) {
      return inner.equals(outer);
    }
    return inner.equals(outer + "/" + below);
  }
}
