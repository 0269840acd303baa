package dev.pushgate.gateway;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheBuilder;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.lib.CommitBuilder;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.TagBuilder;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;

/** Real bare repositories on disk and commits written into them, for tests. */
final class TestRepos {
  /** Commit times go up by a minute per commit, so that walks list newest first. */
  private static final AtomicLong CLOCK = new AtomicLong(1_700_000_000L);

  private TestRepos() {}

  static Repository bare(Path dir) throws IOException {
    Repository db = new FileRepository(dir.toFile());
    db.create(true);
    return db;
  }

  /** A commit whose tree holds exactly {@code files} (path → content), with these parents. */
  /** What a file's content in {@link #commit} starts with to make it a symlink to the rest. */
  private static final String LINK = "\0symlink to ";

  /** A file content for {@link #commit} that makes the file a symlink to {@code target}. */
  static String link(String target) {
    return LINK + target;
  }

  static RevCommit commit(Repository db, String message, Map<String, String> files,
      ObjectId... parents) throws IOException {
    try (ObjectInserter ins = db.newObjectInserter(); RevWalk walk = new RevWalk(db)) {
      DirCache index = DirCache.newInCore();
      DirCacheBuilder b = index.builder();
      for (Map.Entry<String, String> f : files.entrySet()) {
        DirCacheEntry e = new DirCacheEntry(f.getKey());
        boolean link = f.getValue().startsWith(LINK);
        e.setFileMode(link ? FileMode.SYMLINK : FileMode.REGULAR_FILE);
        e.setObjectId(ins.insert(Constants.OBJ_BLOB, (link
            ? f.getValue().substring(LINK.length()) : f.getValue()).getBytes(StandardCharsets.UTF_8)));
        b.add(e);
      }
      b.finish();
      ObjectId tree = index.writeTree(ins);
      PersonIdent who = new PersonIdent("Agent", "agent@example.invalid",
          Instant.ofEpochSecond(CLOCK.addAndGet(60)), ZoneOffset.UTC);
      CommitBuilder c = new CommitBuilder();
      c.setTreeId(tree);
      c.setParentIds(parents);
      c.setAuthor(who);
      c.setCommitter(who);
      c.setMessage(message);
      ObjectId id = ins.insert(c);
      ins.flush();
      return walk.parseCommit(id);
    }
  }

  /** An annotated tag object (no ref) pointing at {@code target}. */
  static ObjectId annotatedTag(Repository db, String name, ObjectId target) throws IOException {
    try (ObjectInserter ins = db.newObjectInserter(); RevWalk walk = new RevWalk(db)) {
      TagBuilder t = new TagBuilder();
      t.setTag(name);
      t.setObjectId(walk.parseAny(target));
      t.setTagger(new PersonIdent("Agent", "agent@example.invalid",
          Instant.ofEpochSecond(CLOCK.addAndGet(60)), ZoneOffset.UTC));
      t.setMessage("release " + name + "\n");
      ObjectId id = ins.insert(t);
      ins.flush();
      return id;
    }
  }

  static void setRef(Repository db, String ref, ObjectId id) throws IOException {
    RefUpdate u = db.updateRef(ref);
    u.setNewObjectId(id);
    u.setForceUpdate(true);
    RefUpdate.Result r = u.update();
    if (r != RefUpdate.Result.NEW && r != RefUpdate.Result.FORCED
        && r != RefUpdate.Result.FAST_FORWARD && r != RefUpdate.Result.NO_CHANGE) {
      throw new IOException("could not set " + ref + ": " + r);
    }
  }

  /**
   * A push test's upstream: its first commit "base" (README.md "base"), on main and on old, a
   * branch there to be deleted.
   */
  static RevCommit baseOnMainAndOld(Repository upstream) throws IOException {
    RevCommit base = commit(upstream, "base\n", Map.of("README.md", "base\n"));
    setRef(upstream, "refs/heads/main", base);
    setRef(upstream, "refs/heads/old", base);
    return base;
  }

  /** Where {@code ref} points, or null when it does not exist. */
  static ObjectId idOf(Repository db, String ref) throws IOException {
    Ref r = db.exactRef(ref);
    return r == null ? null : r.getObjectId();
  }

  static String url(Path dir) {
    return dir.toUri().toString();
  }

  /**
   * A history of {@code commits} commits after two, each swapping {@code files} files between
   * two contents the first two already brought: nothing new to scan, every file a diff to walk.
   */
  static RevCommit swappingHistory(Repository db, int files, int commits) throws IOException {
    Map<String, String> even = new java.util.TreeMap<>();
    Map<String, String> odd = new java.util.TreeMap<>();
    for (int i = 0; i < files; i++) {
      even.put("f" + i + ".txt", i % 2 == 0 ? "one\n" : "two\n");
      odd.put("f" + i + ".txt", i % 2 == 0 ? "two\n" : "one\n");
    }
    RevCommit a = TestRepos.commit(db, "even", even);
    RevCommit b = TestRepos.commit(db, "odd", odd, a);
    ObjectId parent = b;
    PersonIdent who = new PersonIdent("Agent", "agent@example.invalid");
    try (ObjectInserter ins = db.newObjectInserter()) {
      for (int i = 0; i < commits; i++) {
        org.eclipse.jgit.lib.CommitBuilder c = new org.eclipse.jgit.lib.CommitBuilder();
        c.setTreeId((i % 2 == 0 ? a : b).getTree());
        c.setParentId(parent);
        c.setAuthor(who);
        c.setCommitter(who);
        c.setMessage("swap " + i);
        parent = ins.insert(c);
      }
      ins.flush();
    }
    try (org.eclipse.jgit.revwalk.RevWalk walk = new org.eclipse.jgit.revwalk.RevWalk(db)) {
      return walk.parseCommit(parent);
    }
  }
}
