package dev.pushgate.gateway;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.eclipse.jgit.errors.MissingObjectException;
import org.eclipse.jgit.lib.BitmapIndex;
import org.eclipse.jgit.lib.BitmapIndex.BitmapBuilder;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.BitmapWalker;
import org.eclipse.jgit.revwalk.ObjectWalk;
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
 * <p>Three steps, each only if the one before left an id unseen, all under one {@link
 * ReachBound}:
 *
 * <ol>
 *   <li>The tips' own trees, newest tip first, no tree twice, up to {@link #FIRST_STEP_TREES}:
 *       what an ordinary push's thin pack names as its base (the root tree of the commit it
 *       builds on) and what a partial clone's checkout asks for are met here, after one tree
 *       walk, as before bounds and bitmaps.
 *   <li>With a pack bitmap index (a compaction of a history of {@link
 *       CacheCompaction#BITMAPS_FROM_PACK_BYTES} or more builds one): everything the tips reach, as
 *       the bitmaps of the commits it covers joined with a walk of only what is newer ({@link
 *       BitmapWalker}): proportional to what came since the compaction, not to the history. An
 *       object a refused push left is never in it.
 *   <li>Without one: the walk from the tips, newest commits first, each commit's tree before the
 *       next commit, no tree twice, until every id was seen. To prove an id is not reached, this
 *       reads the whole history; the bound ends it ({@link Undecided}) and {@code compact} is
 *       told, so that the cache gets bitmaps and the next decision is the second step's (as after
 *       a second step that went past the bound: more history since the compaction than the bound
 *       reads).
 * </ol>
 *
 * <p>Every id goes through the same steps whether the cache holds it or not, and whatever it is:
 * an id nobody has, or a commit, answered before the bound while a refused push's blob went on to
 * it, told a run which ids the cache holds.
 */
final class Reach {
  /**
   * Trees the first step reads before it leaves the rest to the bitmaps or the walk: the newest
   * tip's whole tree however large (the Linux kernel's has about 5,000), then further tips' while
   * fewer were read. Without this, a repository with hundreds of tags (each a release's tree)
   * would read the union of all their trees before the bitmaps were asked.
   */
  static final int FIRST_STEP_TREES = 1_000;

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
   *
   * @param compact told when the decision went past {@code bound}: the cache has no bitmaps, or
   *     more history since its compaction than the bound reads
   * @throws Undecided past {@code bound}: nothing is reached, nothing refused; the caller fails
   *     closed with its own words
   */
  static Set<ObjectId> unreached(ObjectReader reader, Collection<? extends ObjectId> tips,
      Collection<? extends ObjectId> ids, ReachBound bound, Runnable compact)
      throws IOException {
    Set<ObjectId> unseen = new LinkedHashSet<>();
    for (ObjectId id : ids) {
      unseen.add(id.copy());
    }
    unseen.removeAll(tips);
    if (unseen.isEmpty()) {
      return unseen;
    }
    ObjectReader bounded = bound.reading(reader);
    try (RevWalk walk = new RevWalk(bounded)) {
      Walk w = new Walk(bounded, walk, unseen);
      try {
        List<RevCommit> tipCommits = w.tipsAndTheirTrees(tips);
        if (!unseen.isEmpty()) {
          BitmapIndex bitmaps = reader.getBitmapIndex();
          if (bitmaps != null) {
            w.byBitmaps(bitmaps, tips);
          } else {
            w.history(tipCommits);
          }
        }
      } catch (Undecided e) {
        compact.run(); // whichever step went past the bound
        throw e;
      }
      Set<ObjectId> unreached = new LinkedHashSet<>();
      for (ObjectId id : ids) {
        if (unseen.contains(id)) {
          unreached.add(id.copy());
        }
      }
      return unreached;
    }
  }

  /**
   * Whether the tips reach an id could not be decided within the bound: neither reached nor
   * refused. The message says which bound ({@code within 180 s}); the caller says the rest.
   */
  static final class Undecided extends IOException {
    private static final long serialVersionUID = 1L;

    Undecided(String bound) {
      super("what this repository's branches and tags reach could not be decided " + bound);
    }

    /** Stack-less: raised per request that asks, named by this class alone. */
    @Override
    public synchronized Throwable fillInStackTrace() {
      return this;
    }
  }

  /** One walk from the tips, removing what it meets from {@code unseen}. */
  private static final class Walk {
    private final ObjectReader reader;
    private final RevWalk walk;
    private final Set<ObjectId> unseen;
    private final Set<ObjectId> readTrees = new HashSet<>();

    Walk(ObjectReader reader, RevWalk walk, Set<ObjectId> unseen) {
      this.reader = reader;
      this.walk = walk;
      this.unseen = unseen;
    }

    /**
     * The tips, their tags peeled, and the trees of the tips' commits, newest first: the first
     * step. Returns the tips' commits, for the walk of their history.
     */
    List<RevCommit> tipsAndTheirTrees(Collection<? extends ObjectId> tips) throws IOException {
      List<RevTree> tipTrees = new ArrayList<>();
      List<RevCommit> tipCommits = new ArrayList<>();
      for (ObjectId tip : tips) {
        if (unseen.isEmpty()) {
          break;
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
          see(c);
          tipCommits.add(c);
        } else if (o instanceof RevTree t) {
          tipTrees.add(t);
        } else {
          see(o);
        }
      }
      for (RevTree t : tipTrees) {
        readTree(t);
      }
      // newest first, as the walk of the history would meet them
      tipCommits.sort(Comparator.comparingInt(RevCommit::getCommitTime).reversed());
      for (RevCommit c : tipCommits) {
        if (unseen.isEmpty() || readTrees.size() >= FIRST_STEP_TREES) {
          break; // never within a tree: a tree read is read whole, or its walk skips part of it
        }
        readTree(c.getTree());
      }
      return tipCommits;
    }

    /** Everything the tips reach, from the bitmaps and a walk of what they do not cover. */
    void byBitmaps(BitmapIndex bitmaps, Collection<? extends ObjectId> tips) throws IOException {
      List<ObjectId> starts = new ArrayList<>(tips);
      try (ObjectWalk objects = new ObjectWalk(reader)) {
        BitmapBuilder reached = new BitmapWalker(objects, bitmaps, null)
            .findObjects(starts, null, true);
        unseen.removeIf(reached::contains);
      }
    }

    /** The history from the tips, newest commits first, until nothing is left unseen. */
    void history(List<RevCommit> tipCommits) throws IOException {
      walk.markStart(tipCommits);
      for (RevCommit c; !unseen.isEmpty() && (c = walk.next()) != null; ) {
        see(c);
        if (!unseen.isEmpty()) {
          readTree(c.getTree());
        }
      }
    }
    private void see(ObjectId id) {
      unseen.remove(id);
    }

    /** Every tree and blob of {@code root} not read before, until none is left unseen. */
    private void readTree(ObjectId root) throws IOException {
      Deque<ObjectId> trees = new ArrayDeque<>();
      trees.push(root.copy());
      CanonicalTreeParser entries = new CanonicalTreeParser();
      while (!trees.isEmpty() && !unseen.isEmpty()) {
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
