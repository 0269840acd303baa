package dev.pushgate.gateway;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.eclipse.jgit.diff.DiffEntry;
import org.eclipse.jgit.diff.DiffFormatter;
import org.eclipse.jgit.diff.Edit;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.patch.FileHeader;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevObject;
import org.eclipse.jgit.revwalk.RevTree;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.util.io.DisabledOutputStream;

/**
 * What a ref update would change, file by file, as {@code git diff --stat} counts it: lines added
 * and removed per path, for an approver deciding on a held push. Read off the gateway's cache of
 * the repository, which holds the pushed objects while the push is held. When it cannot be
 * computed, {@link #unavailable} says why and there are no files.
 */
public record Diffstat(List<File> files, int added, int removed, int unlisted,
    String base, String unavailable) {
  /** Files listed; the rest are counted in {@link #unlisted}, so a huge change stays cheap. */
  public static final int MAX_FILES = 300;
  /** Past this size a file counts as binary: its lines are not compared. */
  private static final int BINARY_THRESHOLD = 1 << 20;
  private static final int RENAME_LIMIT = 200;

  /** One path: lines added and removed, or binary. {@code oldPath} is set for a rename. */
  public record File(String path, String oldPath, String change, int added, int removed,
      boolean binary) {}

  public Diffstat {
    files = List.copyOf(files);
  }

  /** A diffstat that cannot be shown, and why, in words for the approver. */
  public static Diffstat unavailable(String why) {
    return new Diffstat(List.of(), 0, 0, 0, null, why);
  }

  /**
   * The change a ref moving from {@code oldId} to {@code newId} brings: for an update, the old
   * tree against the new one (so a force-push shows what it throws away too); for a new ref, the
   * new commits against the commit they grow from that the repository's branches already have
   * (or against nothing, for history of its own); a delete brings nothing to diff.
   */
  public static Diffstat of(Repository db, String oldId, String newId) throws IOException {
    ObjectId before = parse(oldId);
    ObjectId after = parse(newId);
    if (after == null) {
      return unavailable("the question names no commit to count");
    }
    if (after.equals(ObjectId.zeroId())) {
      return unavailable("a delete: nothing lands, the ref goes away");
    }
    try (RevWalk walk = new RevWalk(db)) {
      if (!db.getObjectDatabase().has(after)) {
        return unavailable("the pushed objects are no longer in the gateway's cache");
      }
      RevObject a = walk.peel(walk.parseAny(after));
      if (!(a instanceof RevCommit newCommit)) {
        return unavailable("the ref would point at a " + Constants.typeString(a.getType())
            + ", not a commit: there are no files to count");
      }
      RevTree oldTree = null;
      String base;
      if (before != null && !before.equals(ObjectId.zeroId())) {
        if (!db.getObjectDatabase().has(before)) {
          return unavailable("the ref's current commit is not in the gateway's cache");
        }
        RevObject b = walk.peel(walk.parseAny(before));
        if (!(b instanceof RevCommit oldCommit)) {
          return unavailable("the ref points at a " + Constants.typeString(b.getType())
              + " now, not a commit: there are no files to count");
        }
        oldTree = oldCommit.getTree();
        base = "the ref's current commit " + oldCommit.abbreviate(10).name();
      } else {
        RevCommit grownFrom = grownFrom(db, newCommit);
        if (grownFrom != null) {
          oldTree = walk.parseCommit(grownFrom).getTree();
          base = "commit " + grownFrom.abbreviate(10).name()
              + ", where the new branch leaves the repository's existing history";
        } else {
          base = "nothing: the new branch shares no history with the repository's branches";
        }
      }
      return count(db, oldTree, newCommit.getTree(), base);
    }
  }

  /** The first commit on {@code tip}'s first-parent line that a branch already has; null if none. */
  private static RevCommit grownFrom(Repository db, RevCommit tip) throws IOException {
    Set<ObjectId> fresh = new HashSet<>();
    try (RevWalk walk = new RevWalk(db)) {
      walk.markStart(walk.parseCommit(tip));
      for (Ref ref : db.getRefDatabase().getRefsByPrefix(Constants.R_HEADS)) {
        if (ref.getObjectId() != null) {
          RevObject o = walk.peel(walk.parseAny(ref.getObjectId()));
          if (o instanceof RevCommit c) {
            walk.markUninteresting(c);
          }
        }
      }
      for (RevCommit c; (c = walk.next()) != null; ) {
        fresh.add(c.copy());
      }
    }
    try (RevWalk walk = new RevWalk(db)) {
      RevCommit c = walk.parseCommit(tip);
      while (fresh.contains(c)) {
        if (c.getParentCount() == 0) {
          return null;
        }
        c = walk.parseCommit(c.getParent(0));
      }
      return c;
    }
  }

  private static Diffstat count(Repository db, RevTree oldTree, RevTree newTree, String base)
      throws IOException {
    List<File> files = new ArrayList<>();
    int added = 0;
    int removed = 0;
    int unlisted = 0;
    try (DiffFormatter diff = new DiffFormatter(DisabledOutputStream.INSTANCE)) {
      diff.setRepository(db);
      diff.setBinaryFileThreshold(BINARY_THRESHOLD);
      diff.setDetectRenames(true);
      diff.getRenameDetector().setRenameLimit(RENAME_LIMIT);
      List<DiffEntry> entries = diff.scan(oldTree, newTree);
      for (DiffEntry e : entries) {
        if (files.size() >= MAX_FILES) {
          unlisted++;
          continue;
        }
        FileHeader h = diff.toFileHeader(e);
        boolean binary = h.getPatchType() != FileHeader.PatchType.UNIFIED;
        int plus = 0;
        int minus = 0;
        for (Edit edit : h.toEditList()) {
          plus += edit.getLengthB();
          minus += edit.getLengthA();
        }
        added += plus;
        removed += minus;
        boolean moved = e.getChangeType() == DiffEntry.ChangeType.RENAME
            || e.getChangeType() == DiffEntry.ChangeType.COPY;
        String path = e.getChangeType() == DiffEntry.ChangeType.DELETE ? e.getOldPath()
            : e.getNewPath();
        files.add(new File(path, moved ? e.getOldPath() : null,
            e.getChangeType().name().toLowerCase(java.util.Locale.ROOT), plus, minus, binary));
      }
    }
    return new Diffstat(files, added, removed, unlisted, base, null);
  }

  private static ObjectId parse(String id) {
    return id == null || !ObjectId.isId(id) ? null : ObjectId.fromString(id);
  }
}
