package dev.pushgate.gateway;

import dev.pushgate.policy.ContentRules;
import java.io.ByteArrayOutputStream;
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
import org.eclipse.jgit.transport.ReceiveCommand;

/**
 * What a ref update would change, file by file, for an approver deciding on a held push: lines
 * added and removed per path, as {@code git diff --stat} counts them, the diff itself (bounded:
 * {@value #MAX_LINES} lines in all, each cut at {@value #MAX_LINE_CHARS} characters; what is past
 * that is counted, not shown), the authors of the new commits and what the run's content rules
 * find in them. Read off the gateway's cache of the repository, which holds the pushed objects
 * while the push is held. When it cannot be computed, {@link #unavailable} says why and there are
 * no files.
 *
 * @param diffs the diff of each of {@link #files}, in the same order
 * @param authors who wrote the new commits ({@code Name <email>}), each once
 * @param findings what the run's content rules find in the new commits, as the push was judged
 */
public record Diffstat(List<File> files, int added, int removed, int unlisted,
    String base, String unavailable, List<FileDiff> diffs, List<String> authors,
    List<Finding> findings) {
  /** Files listed; the rest are counted in {@link #unlisted}, so a huge change stays cheap. */
  public static final int MAX_FILES = 300;
  /** Past this size a file counts as binary: its lines are not compared. */
  private static final int BINARY_THRESHOLD = 1 << 20;
  private static final int RENAME_LIMIT = 200;

  /** Diff lines shown for one question, all files together: a huge push stays cheap to show. */
  public static final int MAX_LINES = 5000;
  /** A longer line (minified code, say) is cut, and says so. */
  public static final int MAX_LINE_CHARS = 1000;
  /** Authors listed; a push of many people's commits says how many more. */
  static final int MAX_AUTHORS = 20;

  /** One path: lines added and removed, or binary. {@code oldPath} is set for a rename. */
  public record File(String path, String oldPath, String change, int added, int removed,
      boolean binary) {}

  /**
   * The diff of one file as lines to show; {@code hiddenLines} more were not shown (past {@link
   * #MAX_LINES}). A binary file has no lines.
   */
  public record FileDiff(List<Line> lines, int hiddenLines) {
    public FileDiff {
      lines = List.copyOf(lines);
    }

    static final FileDiff NONE = new FileDiff(List.of(), 0);
  }

  /**
   * One line of a diff, as the pushed file has it (never interpreted).
   *
   * @param oldLine its number in the old file, 0 for an added line or a hunk header
   * @param newLine its number in the new file, 0 for a removed line or a hunk header
   * @param finding what a content rule found on this line, or null; the text of a line where a
   *     secret was found is replaced by the finding, so the page never shows the secret itself
   */
  public record Line(Kind kind, int oldLine, int newLine, String text, String finding) {
    public enum Kind { HUNK, CONTEXT, ADDED, REMOVED }
  }

  /**
   * What a content rule found, as git's refusal says it ({@code config/.env:3 holds …}).
   *
   * @param path the file, or what else was judged ({@code the commit message})
   * @param line the line in the new file, 0 for the whole file
   */
  public record Finding(String path, int line, String text, String decision) {}

  public Diffstat {
    files = List.copyOf(files);
    diffs = List.copyOf(diffs);
    authors = List.copyOf(authors);
    findings = List.copyOf(findings);
  }

  /** A diffstat that cannot be shown, and why, in words for the approver. */
  public static Diffstat unavailable(String why) {
    return new Diffstat(List.of(), 0, 0, 0, null, why, List.of(), List.of(), List.of());
  }

  /** {@link #of(Repository, String, String, String, ContentRules)} without content rules. */
  public static Diffstat of(Repository db, String oldId, String newId) throws IOException {
    return of(db, null, oldId, newId, null);
  }

  /**
   * The change a ref moving from {@code oldId} to {@code newId} brings: for an update, the old
   * tree against the new one (so a force-push shows what it throws away too); for a new ref, the
   * new commits against the commit they grow from that the repository's branches already have
   * (or against nothing, for history of its own); a delete brings nothing to diff.
   *
   * @param ref the ref the push updates; with {@code rules}, the findings are those the push was
   *     judged with ({@link ContentJudge}, the one judge of pushed content), null for none
   */
  public static Diffstat of(Repository db, String ref, String oldId, String newId,
      ContentRules rules) throws IOException {
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
      ReceiveCommand cmd = new ReceiveCommand(before == null ? ObjectId.zeroId() : before, after,
          ref == null ? Constants.R_HEADS + "unnamed" : ref);
      List<Ref> refs = db.getRefDatabase().getRefs();
      List<Finding> findings = rules == null ? List.of() : findings(db, cmd, refs, rules);
      return count(db, oldTree, newCommit.getTree(), base,
          UpdateCommands.authors(db, cmd, refs, MAX_AUTHORS), findings);
    }
  }

  /** What the run's content rules find, as the push's judgement found it. */
  private static List<Finding> findings(Repository db, ReceiveCommand cmd, List<Ref> refs,
      ContentRules rules) throws IOException {
    List<Finding> out = new ArrayList<>();
    try (ContentJudge judge = new ContentJudge(db, rules, SecretScanner.standard())) {
      for (ContentFinding f : judge.findings(cmd, refs)) {
        int line = 0;
        if (f.kind() == ContentFinding.Kind.SECRET) {
          line = Integer.parseInt(f.detail().substring(f.detail().indexOf(':') + 1));
        }
        out.add(new Finding(f.path(), line, f.text(), f.decision().id()));
      }
    }
    return out;
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

  private static Diffstat count(Repository db, RevTree oldTree, RevTree newTree, String base,
      List<String> authors, List<Finding> findings) throws IOException {
    List<File> files = new ArrayList<>();
    List<FileDiff> diffs = new ArrayList<>();
    int added = 0;
    int removed = 0;
    int unlisted = 0;
    int linesLeft = MAX_LINES;
    ByteArrayOutputStream patch = new ByteArrayOutputStream();
    try (DiffFormatter diff = new DiffFormatter(patch)) {
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
        if (binary || plus + minus == 0) {
          diffs.add(FileDiff.NONE);
          continue;
        }
        if (linesLeft <= 0) {
          // Past the cap nothing more is formatted: the file's count says what it holds.
          diffs.add(new FileDiff(List.of(), plus + minus));
          continue;
        }
        patch.reset();
        diff.format(e);
        FileDiff d = DiffLines.of(patch.toByteArray(), linesLeft, MAX_LINE_CHARS,
            findingsOf(path, findings));
        linesLeft -= d.lines().size();
        diffs.add(d);
      }
    }
    return new Diffstat(files, added, removed, unlisted, base, null, diffs, authors, findings);
  }

  private static List<Finding> findingsOf(String path, List<Finding> findings) {
    return findings.stream().filter(f -> f.line() > 0 && f.path().equals(path)).toList();
  }

  private static ObjectId parse(String id) {
    return id == null || !ObjectId.isId(id) ? null : ObjectId.fromString(id);
  }
}
