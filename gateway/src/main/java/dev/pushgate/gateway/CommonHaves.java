package dev.pushgate.gateway;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.eclipse.jgit.errors.MissingObjectException;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevObject;
import org.eclipse.jgit.revwalk.RevWalk;

/**
 * Of a client's haves, the commits the cache's branches and tags reach ({@code common}),
 * whether those reach every one of the cache's tips ({@code reachesAll}), and whether the tips
 * reach more than {@link #MAX_LACKING} commits they do not ({@code lacksMany}). Upstream may be
 * asked with {@code common}: the cache has every object they reach (its refs are whole), and so
 * does the client, by its own word. A have the cache lacks, or holds only outside its refs (a refused
 * push's commit), is not one of them: upstream's pack may leave out what it reaches, which the
 * cache might not have.
 *
 * <p>Both walks err only towards fewer commits in common and fewer tips reached (a commit dated
 * before its parent may be taken for unreached), never towards more; so {@code lacksMany} errs
 * only towards true, which serves the client from the cache.
 */
record CommonHaves(List<ObjectId> common, boolean reachesAll, boolean lacksMany) {
  /**
   * More commits than this that the cache's tips reach and the common haves do not ({@code
   * lacksMany}), and upstream is not asked with the client's haves: its pack would resend them,
   * and the cache store them again, on every move of upstream (a run's clone of a long history
   * with no haves, repeated, grew the cache by the whole history each time). A client that lacks
   * this much is a fresh clone of an existing history, where streaming saves only the overlap of
   * two transfers; one that fetches lacks what upstream added since its last fetch, far fewer
   * (the WAN bench's client lacks none). So what the cache may store twice per upstream move is
   * bounded by about this many commits, and the bound's walk is as short.
   */
  static final int MAX_LACKING = 1000;

  /** Finds the common haves in one repository, the cache. */
  @FunctionalInterface
  interface Finder {
    CommonHaves find(List<ObjectId> clientHaves, Set<ObjectId> tips) throws IOException;
  }

  /** The finder over {@code cache}, whose branches and tags name {@code tips} (peeled). */
  static Finder in(Repository cache) {
    return (clientHaves, tips) -> of(cache, clientHaves, tips);
  }

  static CommonHaves of(Repository cache, List<ObjectId> clientHaves, Set<ObjectId> tips)
      throws IOException {
    try (RevWalk walk = new RevWalk(cache)) {
      walk.setRetainBody(false);
      List<ObjectId> common = common(walk, clientHaves, tips);
      List<RevCommit> tipCommits = commits(walk, tips);
      int lacking = 0;
      if (!tipCommits.isEmpty()) {
        walk.reset();
        // rev-list TIPS --not COMMON, counted up to the bound: empty when the common haves
        // reach every tip
        walk.markStart(tipCommits);
        for (ObjectId id : common) {
          walk.markUninteresting(walk.lookupCommit(id));
        }
        while (lacking <= MAX_LACKING && walk.next() != null) {
          lacking++;
        }
      }
      boolean reachesAll = tipCommits.size() == tips.size() && lacking == 0;
      return new CommonHaves(List.copyOf(common), reachesAll, lacking > MAX_LACKING);
    }
  }

  /**
   * Of {@code clientHaves}, the commits the cache's branches and tags reach, without asking
   * whether they reach every tip: the only haves JGit's upload-pack on the cache is handed
   * ({@link FetchRequestBody}), so that it acknowledges nothing else.
   */
  static List<ObjectId> common(Repository cache, List<ObjectId> clientHaves)
      throws IOException {
    if (clientHaves.isEmpty()) {
      return List.of();
    }
    Set<ObjectId> tips = tips(cache);
    try (RevWalk walk = new RevWalk(cache)) {
      walk.setRetainBody(false);
      return List.copyOf(common(walk, clientHaves, tips));
    }
  }

  /**
   * The cache's branches and tags, each annotated tag replaced by what it tags: the haves a git
   * client sends (commits only), so that upstream's pack for the cache is whole for a client that
   * has those commits ({@link FetchStream}), and still holds any tag a wanted object names.
   */
  static Set<ObjectId> tips(Repository cache) throws IOException {
    Set<ObjectId> peeled = new HashSet<>();
    try (RevWalk walk = new RevWalk(cache)) {
      for (ObjectId tip : MirroredRefs.of(cache).values()) {
        peeled.add(walk.peel(walk.parseAny(tip)).copy());
      }
    }
    return peeled;
  }

  private static List<ObjectId> common(RevWalk walk, List<ObjectId> clientHaves,
      Set<ObjectId> tips) throws IOException {
    List<RevCommit> named = commits(walk, new LinkedHashSet<>(clientHaves));
    List<RevCommit> tipCommits = commits(walk, tips);
    // rev-list NAMED --not TIPS: what it lists, the tips do not reach
    Set<RevCommit> unreached = listed(walk, named, tipCommits);
    List<ObjectId> common = new ArrayList<>();
    for (RevCommit c : named) {
      if (!unreached.contains(c)) {
        common.add(c.copy());
      }
    }
    return common;
  }

  private static List<RevCommit> commits(RevWalk walk, Set<ObjectId> ids) throws IOException {
    List<RevCommit> commits = new ArrayList<>();
    for (ObjectId id : ids) {
      try {
        RevObject o = walk.parseAny(id);
        if (o instanceof RevCommit c) {
          commits.add(c);
        }
      } catch (MissingObjectException e) {
        // not in the cache: not in common
      }
    }
    return commits;
  }

  private static Set<RevCommit> listed(RevWalk walk, List<RevCommit> start,
      List<RevCommit> not) throws IOException {
    Set<RevCommit> listed = new HashSet<>();
    if (start.isEmpty()) {
      return listed;
    }
    walk.markStart(start);
    for (RevCommit c : not) {
      walk.markUninteresting(c);
    }
    for (RevCommit c; (c = walk.next()) != null; ) {
      listed.add(c);
    }
    return listed;
  }
}
