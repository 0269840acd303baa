package dev.pushgate.forge;

import java.io.IOException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheBuilder;
import org.eclipse.jgit.dircache.DirCacheEditor;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.lib.CommitBuilder;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.merge.MergeStrategy;
import org.eclipse.jgit.merge.ThreeWayMerger;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.TreeWalk;

/**
 * What the forge's API writes into a bare repository, with JGit and without a work tree: merges
 * of pull requests, commits of the contents API, ref changes. Every change of a ref is made with
 * the value it was read at as its expected old value, under the repository's lock shared with
 * pushes, so an API write never overwrites a push it did not see.
 */
final class ForgeCommits {
  /** A file read at a ref. */
  record FileAt(String path, ObjectId blob, byte[] content) {}

  /** A commit made on a branch, and the blob it wrote. */
  record Written(ObjectId commit, ObjectId blob, boolean created) {}

  /** A refusal the API answers with a status and GitHub's message. */
  static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;
    final int status;
    /** For a 422 "Validation Failed": the field and GitHub's error code, or nulls. */
    final String field;
    final String code;

    Refused(int status, String message) {
      this(status, message, null, null);
    }

    private Refused(int status, String message, String field, String code) {
      super(message);
      this.status = status;
      this.field = field;
      this.code = code;
    }

    static Refused invalid(String field, String code, String message) {
      return new Refused(422, message, field, code);
    }

    boolean validation() {
      return code != null;
    }
  }

  private final ForgeRefUpdates refUpdates;

  ForgeCommits(ForgeRefUpdates refUpdates) {
    this.refUpdates = refUpdates;
  }

  static Repository open(ForgeRepositories.ForgeRepo repo) throws IOException {
    return new FileRepository(repo.dir().toFile());
  }

  /** The commit a branch points at, if it exists. */
  static Optional<ObjectId> branch(Repository repo, String name) throws IOException {
    if (!validBranch(name)) {
      return Optional.empty();
    }
    Ref ref = repo.exactRef(Constants.R_HEADS + name);
    return ref == null ? Optional.empty() : Optional.of(ref.getObjectId());
  }

  static boolean validBranch(String name) {
    return name != null && !name.isEmpty() && Repository.isValidRefName(Constants.R_HEADS + name);
  }

  /** The file at {@code path} in the commit {@code rev} names (a branch, a tag or a sha). */
  static Optional<FileAt> file(Repository repo, String rev, String path) throws IOException {
    ObjectId commit = repo.resolve(rev + "^{commit}");
    if (commit == null || path.isEmpty()) {
      return Optional.empty();
    }
    try (RevWalk walk = new RevWalk(repo)) {
      RevCommit c = walk.parseCommit(commit);
      try (TreeWalk tw = TreeWalk.forPath(repo, path, c.getTree())) {
        if (tw == null || (tw.getRawMode(0) & FileMode.TYPE_MASK) != FileMode.TYPE_FILE) {
          return Optional.empty();
        }
        ObjectId blob = tw.getObjectId(0);
        return Optional.of(new FileAt(path, blob, repo.open(blob).getBytes()));
      }
    }
  }

  /**
   * Commits {@code content} at {@code path} on {@code branch}, as the contents API does: the
   * file's current blob sha must be given to replace it and must not be given to create it.
   */
  Written putFile(ForgeRepositories.ForgeRepo r, String branch, String path, byte[] content,
      String message, String expectedSha, PersonIdent who) throws IOException, Refused {
    try (Repository repo = open(r)) {
      return this.<Written>locked(r, () -> {
        Optional<ObjectId> tip = branch(repo, branch);
        if (tip.isEmpty()) {
          throw new Refused(404, "Branch " + branch + " not found");
        }
        Optional<FileAt> existing = file(repo, tip.get().name(), path);
        if (existing.isPresent() && expectedSha == null) {
          throw new Refused(422, "Invalid request.\n\n\"sha\" wasn't supplied.");
        }
        if (existing.isPresent() && !existing.get().blob().name().equals(expectedSha)
            || existing.isEmpty() && expectedSha != null) {
          throw new Refused(409, path + " does not match " + expectedSha);
        }
        try (ObjectInserter ins = repo.newObjectInserter(); RevWalk walk = new RevWalk(repo)) {
          RevCommit parent = walk.parseCommit(tip.get());
          ObjectId blob = ins.insert(Constants.OBJ_BLOB, content);
          DirCache index = DirCache.newInCore();
          DirCacheBuilder builder = index.builder();
          try (ObjectReader reader = repo.newObjectReader()) {
            builder.addTree(new byte[0], 0, reader, parent.getTree());
          }
          builder.finish();
          DirCacheEditor editor = index.editor();
          editor.add(new DirCacheEditor.PathEdit(path) {
            @Override
            public void apply(DirCacheEntry entry) {
              entry.setFileMode(FileMode.REGULAR_FILE);
              entry.setObjectId(blob);
            }
          });
          editor.finish();
          ObjectId tree = index.writeTree(ins);
          ObjectId commit = commit(ins, tree, message, who, parent);
          move(repo, branch, parent, commit);
          return new Written(commit, blob, existing.isEmpty());
        }
      });
    }
  }

  /** How a pull request is merged: GitHub's {@code merge_method}. */
  enum Method { MERGE, SQUASH, REBASE }

  /**
   * Merges {@code head} into {@code base}: a merge commit, one squashed commit, or (rebase) a
   * fast-forward when the base has not moved since the head branched. A conflict, or a rebase
   * that is not a fast-forward, is "not mergeable".
   */
  ObjectId merge(ForgeRepositories.ForgeRepo r, String base, String head, Method method,
      String message, PersonIdent who) throws IOException, Refused {
    try (Repository repo = open(r)) {
      return this.<ObjectId>locked(r, () -> {
        Optional<ObjectId> baseTip = branch(repo, base);
        Optional<ObjectId> headTip = branch(repo, head);
        if (baseTip.isEmpty() || headTip.isEmpty()) {
          throw new Refused(405, "Pull Request is not mergeable");
        }
        try (RevWalk walk = new RevWalk(repo); ObjectInserter ins = repo.newObjectInserter()) {
          RevCommit b = walk.parseCommit(baseTip.get());
          RevCommit h = walk.parseCommit(headTip.get());
          if (walk.isMergedInto(h, b)) {
            throw new Refused(405, "Pull Request is not mergeable");
          }
          ObjectId result;
          if (method == Method.REBASE) {
            if (!walk.isMergedInto(b, h)) {
              throw new Refused(405, "Pull Request is not mergeable");
            }
            result = h;
          } else {
            ThreeWayMerger merger = MergeStrategy.RECURSIVE.newMerger(repo, true);
            if (!merger.merge(b, h)) {
              throw new Refused(405, "Pull Request is not mergeable");
            }
            result = method == Method.MERGE
                ? commit(ins, merger.getResultTreeId(), message, who, b, h)
                : commit(ins, merger.getResultTreeId(), message, who, b);
          }
          move(repo, base, b, result);
          return result;
        }
      });
    }
  }

  /** Creates {@code ref} at {@code target}; false when it exists already. */
  boolean createRef(ForgeRepositories.ForgeRepo r, String ref, ObjectId target)
      throws IOException, Refused {
    try (Repository repo = open(r)) {
      return locked(r, () -> {
        if (repo.exactRef(ref) != null) {
          return false;
        }
        requireCommit(repo, target);
        RefUpdate u = repo.updateRef(ref);
        u.setExpectedOldObjectId(ObjectId.zeroId());
        u.setNewObjectId(target);
        check(u.update(), ref);
        return true;
      });
    }
  }

  /** Moves {@code ref} to {@code target}: only forward unless forced, as GitHub. */
  void updateRef(ForgeRepositories.ForgeRepo r, String ref, ObjectId target, boolean force)
      throws IOException, Refused {
    try (Repository repo = open(r)) {
      this.<Void>locked(r, () -> {
        Ref old = repo.exactRef(ref);
        if (old == null) {
          throw new Refused(422, "Reference does not exist");
        }
        requireCommit(repo, target);
        try (RevWalk walk = new RevWalk(repo)) {
          if (!force && !walk.isMergedInto(walk.parseCommit(old.getObjectId()),
              walk.parseCommit(target))) {
            throw new Refused(422, "Update is not a fast forward");
          }
        }
        RefUpdate u = repo.updateRef(ref);
        u.setExpectedOldObjectId(old.getObjectId());
        u.setNewObjectId(target);
        u.setForceUpdate(true);
        check(u.update(), ref);
        return null;
      });
    }
  }

  /** Deletes {@code ref}; false when there was none. */
  boolean deleteRef(ForgeRepositories.ForgeRepo r, String ref) throws IOException, Refused {
    try (Repository repo = open(r)) {
      return locked(r, () -> {
        Ref old = repo.exactRef(ref);
        if (old == null) {
          return false;
        }
        if (old.getName().equals(repo.exactRef(Constants.HEAD).getTarget().getName())) {
          throw new Refused(422, "Cannot delete the default branch");
        }
        RefUpdate u = repo.updateRef(ref);
        u.setExpectedOldObjectId(old.getObjectId());
        u.setForceUpdate(true);
        check(u.delete(), ref);
        return true;
      });
    }
  }

  private interface Work<T> {
    T run() throws IOException, Refused;
  }

  /** Runs {@code work} under the repository's lock, carrying a refusal through the lock. */
  private <T> T locked(ForgeRepositories.ForgeRepo r, Work<T> work) throws IOException, Refused {
    Refused[] refused = new Refused[1];
    T out = refUpdates.exclusively(r.dir().toFile(), () -> {
      try {
        return work.run();
      } catch (Refused e) {
        refused[0] = e;
        return null;
      }
    });
    if (refused[0] != null) {
      throw refused[0];
    }
    return out;
  }

  private static void requireCommit(Repository repo, ObjectId id) throws IOException, Refused {
    try (RevWalk walk = new RevWalk(repo)) {
      walk.parseCommit(id);
    } catch (org.eclipse.jgit.errors.MissingObjectException
        | org.eclipse.jgit.errors.IncorrectObjectTypeException e) {
      throw new Refused(422, "Object does not exist");
    }
  }

  private static ObjectId commit(ObjectInserter ins, ObjectId tree, String message,
      PersonIdent who, ObjectId... parents) throws IOException {
    CommitBuilder c = new CommitBuilder();
    c.setTreeId(tree);
    c.setParentIds(parents);
    c.setAuthor(who);
    c.setCommitter(who);
    c.setMessage(message.endsWith("\n") ? message : message + "\n");
    ObjectId id = ins.insert(c);
    ins.flush();
    return id;
  }

  private static void move(Repository repo, String branch, ObjectId from, ObjectId to)
      throws IOException, Refused {
    RefUpdate u = repo.updateRef(Constants.R_HEADS + branch);
    u.setExpectedOldObjectId(from);
    u.setNewObjectId(to);
    u.setForceUpdate(true);
    check(u.update(), branch);
  }

  private static void check(RefUpdate.Result result, String ref) throws Refused {
    switch (result) {
      case NEW, FORCED, FAST_FORWARD, NO_CHANGE -> { }
      // someone else moved it between our read and our write: GitHub's answer to a race
      default -> throw new Refused(409, "Reference update failed: " + ref + " " + result);
    }
  }

  static PersonIdent forgeIdent(Instant now) {
    return new PersonIdent("pushgate forge", "forge@pushgate.invalid", now, ZoneOffset.UTC);
  }
}
