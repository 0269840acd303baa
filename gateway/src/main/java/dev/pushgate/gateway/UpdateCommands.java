package dev.pushgate.gateway;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevObject;
import org.eclipse.jgit.revwalk.RevTree;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.transport.ReceiveCommand;
import org.eclipse.jgit.treewalk.EmptyTreeIterator;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.eclipse.jgit.treewalk.filter.AndTreeFilter;
import org.eclipse.jgit.treewalk.filter.TreeFilter;

/** What the gateway reads off the commands of a push: the commits they bring, and what they change. */
final class UpdateCommands {
  private static final int MAX_SUMMARIES = 20;
  /** Past this many commits an approver is told "more than", so a huge push is not walked whole. */
  private static final int MAX_COUNTED = 10_000;
  /** A subject longer than this is cut, and the line says by how much. */
  private static final int MAX_SUBJECT = 200;

  private UpdateCommands() {}

  /** True when {@link #workflowFiles} finds a workflow file changed by any of {@code commands}. */
  static boolean changeWorkflows(
      Repository db, Collection<ReceiveCommand> commands, Collection<Ref> upstreamRefs)
      throws IOException {
    for (ReceiveCommand cmd : commands) {
      if (!workflowFiles(db, cmd, upstreamRefs).isEmpty()) {
        return true;
      }
    }
    return false;
  }

  /**
   * The paths under {@code .github/workflows/} that {@code cmd} creates, changes or removes
   * (a rename names both paths), read off the pushed objects: every commit new to upstream
   * against each of its parents (a root commit: every workflow it holds), and, for an update
   * of an existing ref, the ref's old tree against its new one, so that moving a branch to a
   * commit upstream already has (a rewind, a force-push onto another branch) is seen too. A
   * merge that brings in a workflow change from another branch counts, as GitHub counts it.
   */
  static SortedSet<String> workflowFiles(
      Repository db, ReceiveCommand cmd, Collection<Ref> upstreamRefs) throws IOException {
    return workflowFiles(db, cmd, upstreamRefs, Step.UNBOUNDED);
  }

  /**
   * {@link #workflowFiles(Repository, ReceiveCommand, Collection)} as a step of a judgement:
   * {@code step} is asked at every commit and every tree entry walked, so a push of many commits
   * swapping many files is bounded by the judgement's budget and ends once its client has gone.
   */
  static SortedSet<String> workflowFiles(Repository db, ReceiveCommand cmd,
      Collection<Ref> upstreamRefs, Step step) throws IOException {
    SortedSet<String> files = new TreeSet<>();
    if (cmd.getType() == ReceiveCommand.Type.DELETE) {
      return files;
    }
    // One reader for every walk here, and each pair of trees compared once: a push of one commit
    // onto the ref's old one compares the same two trees as its commit against its parent.
    Set<List<ObjectId>> compared = new HashSet<>();
    try (RevWalk walk = newCommitsWalk(db, List.of(cmd), upstreamRefs)) {
      ObjectReader reader = walk.getObjectReader();
      for (RevCommit c; (c = walk.next()) != null; ) {
        step.check();
        if (c.getParentCount() == 0) {
          changedWorkflows(reader, null, c.getTree(), files, step);
        }
        for (RevCommit parent : c.getParents()) {
          walk.parseHeaders(parent);
          if (compared.add(List.of(parent.getTree(), c.getTree()))) {
            changedWorkflows(reader, parent.getTree(), c.getTree(), files, step);
          }
        }
      }
      if (!cmd.getOldId().equals(ObjectId.zeroId())) {
        RevObject before = walk.peel(walk.parseAny(cmd.getOldId()));
        RevObject after = walk.peel(walk.parseAny(cmd.getNewId()));
        if (before instanceof RevCommit b && after instanceof RevCommit a) {
          walk.parseHeaders(b);
          walk.parseHeaders(a);
          if (compared.add(List.of(b.getTree(), a.getTree()))) {
            changedWorkflows(reader, b.getTree(), a.getTree(), files, step);
          }
        }
      }
    }
    return files;
  }

  /**
   * What a walk asks before each commit and tree entry: a judgement's budget throws once it is
   * spent or nobody waits for the answer ({@link JudgementBudget#check}).
   */
  @FunctionalInterface
  interface Step {
    /** For a caller that bounds the walk otherwise. */
    Step UNBOUNDED = () -> { /* Do nothing. */ };

    void check() throws IOException;
  }

  /**
   * The paths under {@code .github/workflows/} that commit {@code id} holds: what a move to it
   * may change when the ref's old value is not known (a ref the call names only by its node id),
   * so that the workflow rule is not skipped for want of it. {@code step} is asked at every tree
   * entry, as in {@link #workflowFiles(Repository, ReceiveCommand, Collection, Step)}.
   */
  static SortedSet<String> workflowFilesHeld(Repository db, ObjectId id, Step step)
      throws IOException {
    SortedSet<String> files = new TreeSet<>();
    try (RevWalk rw = new RevWalk(db)) {
      step.check();
      if (rw.peel(rw.parseAny(id)) instanceof RevCommit c) {
        changedWorkflows(rw.getObjectReader(), null, c.getTree(), files, step);
      }
    }
    return files;
  }

  /**
   * One-line summaries of the commits new to upstream, newest first, for approvers. Nothing is left
   * out silently: past the first {@value #MAX_SUMMARIES} a last line counts the commits not listed,
   * and a long subject says how much of it is not shown.
   */
  static List<String> summaries(
      Repository db, ReceiveCommand cmd, Collection<Ref> upstreamRefs) throws IOException {
    List<String> out = new ArrayList<>();
    if (cmd.getType() == ReceiveCommand.Type.DELETE) {
      return out;
    }
    try (RevWalk walk = newCommitsWalk(db, List.of(cmd), upstreamRefs)) {
      int unlisted = 0;
      for (RevCommit c; (c = walk.next()) != null; ) {
        if (out.size() < MAX_SUMMARIES) {
          out.add(c.abbreviate(10).name() + " " + subject(c));
        } else if (++unlisted == MAX_COUNTED) {
          out.add("… and more than " + MAX_COUNTED + " more commits, not listed");
          return out;
        }
      }
      if (unlisted > 0) {
        out.add("… and " + unlisted + " more commit" + (unlisted == 1 ? "" : "s")
            + ", not listed");
      }
    }
    return out;
  }

  /**
   * Who wrote the commits new to the repository, {@code Name <email>} each once, oldest first
   * seen; past {@code max} the rest are counted in a last line.
   */
  static List<String> authors(Repository db, ReceiveCommand cmd, Collection<Ref> upstreamRefs,
      int max) throws IOException {
    java.util.LinkedHashSet<String> out = new java.util.LinkedHashSet<>();
    if (cmd.getType() == ReceiveCommand.Type.DELETE) {
      return List.of();
    }
    int more = 0;
    try (RevWalk walk = newCommitsWalk(db, List.of(cmd), upstreamRefs)) {
      for (RevCommit c; (c = walk.next()) != null; ) {
        var a = c.getAuthorIdent();
        String who = Forwarder.oneLine(a.getName()) + " <" + Forwarder.oneLine(a.getEmailAddress())
            + ">";
        if (out.size() < max) {
          out.add(who);
        } else if (!out.contains(who)) {
          more++;
        }
        if (more >= MAX_COUNTED) {
          break;
        }
      }
    }
    List<String> list = new ArrayList<>(out);
    if (more > 0) {
      list.add("… and " + (more >= MAX_COUNTED ? "more than " + MAX_COUNTED : more)
          + " more commits by others");
    }
    return list;
  }

  private static String subject(RevCommit c) {
    String s = Forwarder.oneLine(c.getShortMessage());
    int cut = s.offsetByCodePoints(0, Math.min(MAX_SUBJECT, s.codePointCount(0, s.length())));
    return cut == s.length() ? s
        : s.substring(0, cut) + "… (" + s.codePointCount(cut, s.length()) + " more characters)";
  }

  private static RevWalk newCommitsWalk(
      Repository db, Collection<ReceiveCommand> commands, Collection<Ref> upstreamRefs)
      throws IOException {
    RevWalk walk = new RevWalk(db);
    try {
      for (ReceiveCommand cmd : commands) {
        if (cmd.getType() != ReceiveCommand.Type.DELETE) {
          RevObject o = walk.peel(walk.parseAny(cmd.getNewId()));
          if (o instanceof RevCommit commit) {
            walk.markStart(commit);
          }
        }
      }
      for (Ref ref : upstreamRefs) {
        ObjectId id = ref.getObjectId();
        if (id != null && !ref.getName().startsWith(Constants.R_TAGS)) {
          RevObject o = walk.peel(walk.parseAny(id));
          if (o instanceof RevCommit commit) {
            walk.markUninteresting(commit);
          }
        }
      }
      return walk;
    } catch (IOException | RuntimeException e) {
      walk.close();
      throw e;
    }
  }

  /** Adds the workflow paths that differ between two trees; {@code before} null: none before. */
  private static void changedWorkflows(ObjectReader reader, RevTree before, RevTree after,
      Set<String> into, Step step) throws IOException {
    try (TreeWalk tw = new TreeWalk(reader)) {
      tw.setRecursive(true);
      if (before == null) {
        tw.addTree(new EmptyTreeIterator());
      } else {
        tw.addTree(before);
      }
      tw.addTree(after);
      // The step first: the filters see every entry of both trees (20,000 files swapped are
      // 20,000 entries), while next() returns only the workflow paths among them.
      tw.setFilter(AndTreeFilter.create(new TreeFilter[] {
          new StepFilter(step), WorkflowPaths.INSTANCE, TreeFilter.ANY_DIFF}));
      while (tw.next()) {
        into.add(tw.getPathString());
      }
    }
  }

  /** Asks the walk's step at every entry a tree walk looks at, and lets every entry through. */
  private static final class StepFilter extends TreeFilter {
    private final Step step;

    StepFilter(Step step) {
      this.step = step;
    }

    @Override
    public boolean include(TreeWalk walker) throws IOException {
      step.check();
      return true;
    }

    @Override
    public boolean shouldBeRecursive() {
      return false;
    }

    @Override
    public TreeFilter clone() {
      return this;
    }
  }
}
