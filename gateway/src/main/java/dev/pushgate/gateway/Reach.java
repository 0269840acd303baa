package dev.pushgate.gateway;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.eclipse.jgit.errors.MissingObjectException;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevObject;
import org.eclipse.jgit.revwalk.RevTag;
import org.eclipse.jgit.revwalk.RevTree;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.CanonicalTreeParser;

/**
 * What a run may reach in a cache: the objects its branches and tags reach, as upstream has
 * them. Never what a push left there without upstream taking it (a refused push, one held for
 * an approver), which another run of the repository could otherwise read, or learn exists, by
 * its id. The one rule of both sides: a fetch's wants ({@link ReachableWants}), and a push's thin
 * pack bases ({@link CachePackParser}), which may complete a pack only if the run reaches them.
 *
 * <p>The walk goes from the tips, newest commits first, and reads each commit's tree before the
 * next commit, skipping trees it has read: an object of the tips' own trees (a partial clone's
 * checkout, a thin pack's base) is met after one tree walk, not after the whole history. It stops
 * as soon as every id was seen. Only when commits alone are left unseen are trees not read at
 * all: a commit is met by the commit walk.
 */
final class Reach {
  private Reach() {}

  /** A repository's branches and tags, and the objects their tags name, peeled. */
  static List<ObjectId> branchesAndTags(Repository db) throws IOException {
    List<ObjectId> tips = new ArrayList<>();
    for (Ref r : db.getRefDatabase().getRefsByPrefix(Constants.R_HEADS, Constants.R_TAGS)) {
      if (r.getObjectId() != null) {
        tips.add(r.getObjectId());
      }
      if (r.getPeeledObjectId() != null) {
        tips.add(r.getPeeledObjectId());
      }
    }
    return tips;
  }

  /**
   * Of {@code ids}, those {@code tips} do not reach, in the order given: an id the repository
   * lacks among them. Empty when the tips reach every one.
   */
  static Set<ObjectId> unreached(ObjectReader reader, Collection<? extends ObjectId> tips,
      Collection<? extends ObjectId> ids) throws IOException {
    Set<ObjectId> unseen = new LinkedHashSet<>();
    for (ObjectId id : ids) {
      unseen.add(id.copy());
    }
    unseen.removeAll(tips);
    if (unseen.isEmpty()) {
      return unseen;
    }
    try (RevWalk walk = new RevWalk(reader)) {
      Set<ObjectId> absent = new LinkedHashSet<>();
      int notCommits = 0;
      for (ObjectId id : unseen) {
        try {
          notCommits += walk.parseAny(id).getType() == Constants.OBJ_COMMIT ? 0 : 1;
        } catch (MissingObjectException e) {
          absent.add(id);
        }
      }
      unseen.removeAll(absent);
      new Walk(reader, walk, unseen, notCommits).from(tips);
      Set<ObjectId> unreached = new LinkedHashSet<>();
      for (ObjectId id : ids) {
        if (unseen.contains(id) || absent.contains(id)) {
          unreached.add(id.copy());
        }
      }
      return unreached;
    }
  }

  /** One walk from the tips, removing what it meets from {@code unseen}. */
  private static final class Walk {
    private final ObjectReader reader;
    private final RevWalk walk;
    private final Set<ObjectId> unseen;
    private final Set<ObjectId> readTrees = new HashSet<>();
    /** Of {@code unseen}, how many are not commits: while none is, no tree is read. */
    private int notCommits;

    Walk(ObjectReader reader, RevWalk walk, Set<ObjectId> unseen, int notCommits) {
      this.reader = reader;
      this.walk = walk;
      this.unseen = unseen;
      this.notCommits = notCommits;
    }

    void from(Collection<? extends ObjectId> tips) throws IOException {
      List<RevTree> tipTrees = new ArrayList<>();
      for (ObjectId tip : tips) {
        if (unseen.isEmpty()) {
          return;
        }
        RevObject o;
        try {
          o = walk.parseAny(tip);
          while (o instanceof RevTag tag) {
            see(tag);
            o = walk.parseAny(tag.getObject());
          }
        } catch (MissingObjectException e) {
          continue; // a tip upstream listed that the cache has yet to fetch reaches nothing here
        }
        if (o instanceof RevCommit c) {
          walk.markStart(c);
        } else if (o instanceof RevTree t) {
          tipTrees.add(t);
        } else {
          see(o);
        }
      }
      for (RevTree t : tipTrees) {
        readTree(t);
      }
      for (RevCommit c; !unseen.isEmpty() && (c = walk.next()) != null; ) {
        see(c);
        if (notCommits > 0) {
          readTree(c.getTree());
        }
      }
    }

    private void see(ObjectId id) {
      if (unseen.remove(id) && !(id instanceof RevCommit)) {
        notCommits--;
      }
    }

    /** Every tree and blob of {@code root} not read before, until none is left unseen. */
    private void readTree(ObjectId root) throws IOException {
      Deque<ObjectId> trees = new ArrayDeque<>();
      trees.push(root.copy());
      CanonicalTreeParser entries = new CanonicalTreeParser();
      while (!trees.isEmpty() && notCommits > 0) {
        ObjectId tree = trees.pop();
        if (!readTrees.add(tree)) {
          continue;
        }
        see(tree);
        entries.reset(reader.open(tree, Constants.OBJ_TREE).getCachedBytes());
        for (; !entries.eof(); entries.next()) {
          int mode = entries.getEntryRawMode();
          if (FileMode.TREE.equals(mode)) {
            trees.push(entries.getEntryObjectId());
          } else if (!FileMode.GITLINK.equals(mode)) {
            see(entries.getEntryObjectId());
          }
        }
      }
    }
  }
}
