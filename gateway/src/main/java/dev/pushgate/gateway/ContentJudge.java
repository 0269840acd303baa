package dev.pushgate.gateway;

import dev.pushgate.policy.ContentRule;
import dev.pushgate.policy.ContentRules;
import dev.pushgate.policy.Decision;
import dev.pushgate.types.UntrustedText;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectLoader;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevBlob;
import org.eclipse.jgit.revwalk.RevObject;
import org.eclipse.jgit.revwalk.RevTag;
import org.eclipse.jgit.revwalk.RevTree;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.transport.ReceiveCommand;
import org.eclipse.jgit.treewalk.EmptyTreeIterator;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.eclipse.jgit.treewalk.filter.TreeFilter;

/**
 * Judges what the commits of a push contain, by the run's content rules, on the objects new to
 * upstream only: the commits reachable from the commands' new ids and from no ref upstream
 * advertised, and in each the files it adds or changes against every one of its parents (a
 * rename is an add of the new path; a merge's files taken unchanged from a parent are not new).
 * Each blob is read at most once per push and streamed, so a huge blob costs no memory.
 *
 * <p>One instance per push: it caches what it read of each blob across the push's commands.
 */
final class ContentJudge implements AutoCloseable {
  /** A command's findings stop here: enough to refuse and audit, bounded for a huge push. */
  static final int MAX_FINDINGS = 20;
  /** Git's binary heuristic: a NUL byte in the first 8000 bytes. */
  static final int BINARY_PROBE = 8000;
  /** Linux's PATH_MAX: no longer symlink target can be checked out. */
  private static final int LINK_TARGET_MAX = 4096;
  /** Tags of tags followed this deep for their names and messages; git itself allows any. */
  static final int MAX_TAG_CHAIN = 16;
  /**
   * Blobs larger than this are streamed from the pack, never loaded whole: the binary test reads
   * 8000 bytes of a 2 MiB blob, not 2 MiB, and a blob of any size costs the scanner's buffer only.
   */
  static final int STREAM_ABOVE = 1 << 20;
  /**
   * How long one push's content may take to judge. A push of the largest pack the gateway takes
   * (2 GiB) of ordinary code scans in about a minute here; a file crafted to be slow to scan (see
   * docs/benchmarks.md, "Secret scanner") would hold a core for many minutes. Past this, the
   * file being read is refused as not judged: fail closed.
   */
  static final java.time.Duration BUDGET = java.time.Duration.ofMinutes(3);

  private final Repository db;
  private final ObjectReader reader;
  private final ContentRules rules;
  private final SecretScanner scanner;
  /**
   * What the push's blobs were found to be, so a blob in many commits is read once. Bounded: a
   * push of millions of small blobs would otherwise grow the heap with them; past the bound the
   * cache starts over, and a blob seen again is read again (the verdict is the same).
   */
  static final int MAX_CACHED = 50_000;

  private final Map<ObjectId, Boolean> binary = new HashMap<>();
  private final Map<String, List<SecretFinding>> secrets = new HashMap<>();

  /**
   * The detectors the rules run, over a file and over a text (without the generic ones): picked
   * once per push (or once per run, for the API's writes), not once per file and message.
   */
  private final RuleDetectors detectors;

  /** What this push's judging may still spend: checked at every step, not only in a scan. */
  private final JudgementBudget budget;

  ContentJudge(Repository db, ContentRules rules, SecretScanner scanner) {
    this(db, rules, scanner, BUDGET);
  }

  ContentJudge(Repository db, ContentRules rules, SecretScanner scanner,
      java.time.Duration budget) {
    this(db, rules, scanner, JudgementBudget.of(budget));
  }

  ContentJudge(Repository db, ContentRules rules, SecretScanner scanner,
      JudgementBudget budget) {
    this(db, scanner == SecretScanner.standard() ? RuleDetectors.of(rules)
        : new RuleDetectors(rules, scanner), budget);
  }

  /** A judge with the detectors its rules run picked before ({@link RuleDetectors}). */
  ContentJudge(Repository db, RuleDetectors detectors, JudgementBudget budget) {
    this.budget = budget;
    this.db = db;
    this.reader = db.newObjectReader();
    this.reader.setStreamFileThreshold(STREAM_ABOVE);
    this.detectors = detectors;
    this.rules = detectors.rules();
    this.scanner = detectors.scanner();
  }

  /** The ask and deny findings of one command, at most {@value #MAX_FINDINGS}, oldest first. */
  List<ContentFinding> findings(ReceiveCommand cmd, Collection<Ref> upstreamRefs)
      throws IOException {
    List<ContentFinding> out = new ArrayList<>();
    if (rules.rules().isEmpty() || cmd.getType() == ReceiveCommand.Type.DELETE
        || rules.strictest() == Decision.ALLOW) {
      return out;
    }
    // Names and messages become visible on GitHub as much as files do.
    // Never the ref as where: it may be the secret.
    addIfNotAllowed(judgeText("the ref name", utf8(cmd.getRefName()), "the push"), out);
    try (RevWalk walk = new RevWalk(reader)) {
      RevObject named = walk.parseAny(cmd.getNewId());
      for (int depth = 0; named instanceof RevTag tag && depth < MAX_TAG_CHAIN
          && out.size() < MAX_FINDINGS; depth++) {
        String where = "tag " + tag.abbreviate(7).name();
        addIfNotAllowed(judgeText("the tag name", utf8(tag.getTagName()), where), out);
        addIfNotAllowed(judgeText("the tag message", utf8(tag.getFullMessage()), where), out);
        named = walk.parseAny(tag.getObject());
      }
      RevObject tip = walk.peel(named);
      if (tip instanceof RevTree tree) {
        // A ref at a tree (or a tag of one): every file in it, paths from the tree's root.
        String where = "tree " + tree.abbreviate(7).name();
        try {
          judgeTree(tree, where, out);
        } catch (JudgementBudget.OutOfTime e) {
          out.add(notJudged(where, where));
        }
        return out;
      }
      if (tip instanceof RevBlob blob) {
        // A ref at a blob: content only; it has no name, so only rules for every file apply.
        String name = "blob " + blob.abbreviate(7).name();
        ContentFinding f = judgeFile(null, name, blob, FileMode.REGULAR_FILE, name);
        if (f != null && f.decision() != Decision.ALLOW) {
          out.add(f);
        }
        return out;
      }
      if (!(tip instanceof RevCommit start)) {
        return out;
      }
      walk.markStart(start);
      for (Ref ref : upstreamRefs) {
        ObjectId id = ref.getObjectId();
        if (id != null && reader.has(id)) {
          RevObject o = walk.peel(walk.parseAny(id));
          if (o instanceof RevCommit c) {
            walk.markUninteresting(c);
          }
        }
      }
      walk.sort(org.eclipse.jgit.revwalk.RevSort.REVERSE);
      RevCommit c = null;
      try {
        while ((c = walk.next()) != null && out.size() < MAX_FINDINGS) {
          budget.check();
          judgeCommit(walk, c, out);
        }
      } catch (JudgementBudget.OutOfTime e) {
        // The walk stops here: what it did not reach is not judged, so the push is refused.
        out.add(notJudged(c == null ? "the push's commits" : "commit " + c.abbreviate(7).name(),
            "the push"));
      }
    }
    return out;
  }

  /** What could not be judged in time: refused by the first rule that would have read it. */
  private ContentFinding notJudged(String shown, String where) {
    ContentRule by = rules.rules().stream().filter(ContentRule::readsContent).findFirst()
        .orElse(rules.rules().get(0));
    return new ContentFinding(shown, where, by, ContentFinding.Kind.NOT_JUDGED,
        Long.toString(budget.budget().toSeconds()));
  }

  private void judgeCommit(RevWalk walk, RevCommit c, List<ContentFinding> out)
      throws IOException {
    try (TreeWalk tw = new TreeWalk(reader)) {
      tw.setRecursive(true);
      int parents = c.getParentCount();
      if (parents == 0) {
        tw.addTree(new EmptyTreeIterator());
      }
      for (RevCommit p : c.getParents()) {
        walk.parseHeaders(p);
        tw.addTree(p.getTree());
      }
      int self = tw.addTree(c.getTree());
      tw.setFilter(TreeFilter.ANY_DIFF);
      String commit = "commit " + c.abbreviate(7).name();
      addIfNotAllowed(judgeText("the message of " + commit, c.getRawBuffer(), commit), out);
      PathNames names = new PathNames(commit);
      while (tw.next() && out.size() < MAX_FINDINGS) {
        budget.check(); // a commit may swap many files between contents already judged
        if (tw.getRawMode(self) == 0 || takenFromAParent(tw, self)) {
          continue; // deleted here, or the file of a parent a merge kept
        }
        String path = tw.getPathString();
        names.add(out, tw.getRawPath());
        ContentFinding f = judgeFile(path, path, tw.getObjectId(self),
            FileMode.fromBits(tw.getRawMode(self)), commit);
        if (f != null && f.decision() != Decision.ALLOW) {
          out.add(f);
        }
      }
      names.finish(out);
    }
  }

  /**
   * The paths a commit or tree brings, judged as text in batches (a token can be a file's or a
   * directory's name). A finding says where, never the path: the path holds the secret.
   */
  private final class PathNames {
    private static final int BATCH = 64 * 1024;
    private final String where;
    private final java.io.ByteArrayOutputStream batch = new java.io.ByteArrayOutputStream();

    PathNames(String where) {
      this.where = where;
    }

    void add(List<ContentFinding> out, byte[] path) throws IOException {
      batch.write(path, 0, path.length);
      batch.write('\n');
      if (batch.size() >= BATCH) {
        finish(out);
      }
    }

    void finish(List<ContentFinding> out) throws IOException {
      if (batch.size() > 0 && out.size() < MAX_FINDINGS) {
        addIfNotAllowed(judgeText("a path in " + where, batch.toByteArray(), where), out);
      }
      batch.reset();
    }
  }

  private static byte[] utf8(String s) {
    return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  private void judgeTree(RevTree tree, String where, List<ContentFinding> out)
      throws IOException {
    try (TreeWalk tw = new TreeWalk(reader)) {
      tw.setRecursive(true);
      tw.addTree(tree);
      PathNames names = new PathNames(where);
      while (tw.next() && out.size() < MAX_FINDINGS) {
        budget.check();
        String path = tw.getPathString();
        names.add(out, tw.getRawPath());
        ContentFinding f = judgeFile(path, path, tw.getObjectId(0),
            FileMode.fromBits(tw.getRawMode(0)), where);
        if (f != null && f.decision() != Decision.ALLOW) {
          out.add(f);
        }
      }
      names.finish(out);
    }
  }

  /**
   * The ask and deny findings of files a write describes without a push (an API call): each file
   * judged as a pushed file at its path would be, its blob already in this judge's repository.
   *
   * @param files each path with its blob, or with null when the call names the path but places
   *     an object it does not carry (a tree entry by id): then only rules on names apply
   * @param blobs blobs with no name yet (an uploaded blob): only rules for every file apply
   * @param texts text that becomes visible (messages, names), by what a finding calls it: only
   *     the provider-specific secret detectors of rules for every file apply (see {@link
   *     #judgeText})
   * @param where what a finding says brought the file, for the audit
   */
  List<ContentFinding> findings(Map<String, ObjectId> files, List<ObjectId> blobs,
      Map<String, byte[]> texts, String where) throws IOException {
    List<ContentFinding> out = new ArrayList<>();
    if (rules.rules().isEmpty() || rules.strictest() == Decision.ALLOW) {
      return out;
    }
    try {
      judgeParts(files, blobs, texts, where, out);
    } catch (JudgementBudget.OutOfTime e) {
      out.add(notJudged("the write", where));
    }
    return out;
  }

  private void judgeParts(Map<String, ObjectId> files, List<ObjectId> blobs,
      Map<String, byte[]> texts, String where, List<ContentFinding> out) throws IOException {
    for (Map.Entry<String, ObjectId> f : files.entrySet()) {
      if (out.size() >= MAX_FINDINGS) {
        return;
      }
      budget.check();
      addIfNotAllowed(f.getValue() == null
          ? judgeName(f.getKey(), where)
          : judgeFile(f.getKey(), f.getKey(), f.getValue(), FileMode.REGULAR_FILE, where), out);
    }
    for (ObjectId blob : blobs) {
      if (out.size() >= MAX_FINDINGS) {
        return;
      }
      budget.check();
      String name = "blob " + blob.abbreviate(7).name();
      addIfNotAllowed(judgeFile(null, name, blob, FileMode.REGULAR_FILE, name), out);
    }
    for (Map.Entry<String, byte[]> t : texts.entrySet()) {
      if (out.size() >= MAX_FINDINGS) {
        return;
      }
      budget.check();
      addIfNotAllowed(judgeText(t.getKey(), t.getValue(), where), out);
    }
  }

  private static void addIfNotAllowed(ContentFinding f, List<ContentFinding> out) {
    if (f != null && f.decision() != Decision.ALLOW) {
      out.add(f);
    }
  }

  /** A path whose object is not at hand: the first rule on names alone that matches it. */
  private ContentFinding judgeName(String path, String where) {
    for (ContentRule r : rules.rules()) {
      if (r.covers(path) && !r.readsContent()) {
        return new ContentFinding(path, where, r, ContentFinding.Kind.PATH, "");
      }
    }
    return null;
  }

  /**
   * Text that becomes visible on GitHub (a message, a name): judged by the rules for every file
   * that look for secrets, with their provider-specific detectors only. The generic, entropy-based
   * ones read every identifier-like word of prose as a candidate; a token with a known shape is a
   * secret wherever it is written.
   */
  ContentFinding judgeText(String shown, byte[] text, String where) throws IOException {
    List<SecretFinding> found = null;
    for (ContentRule r : rules.rules()) {
      if (!r.paths().isEmpty() || !r.files().isEmpty() || r.secrets().isEmpty()) {
        continue;
      }
      try {
        if (found == null) {
          found = scanner.scan(new Deadline(new java.io.ByteArrayInputStream(text)), text.length,
              "", detectors.forText());
        }
      } catch (JudgementBudget.OutOfTime e) {
        return new ContentFinding(shown, where, r, ContentFinding.Kind.NOT_JUDGED,
            Long.toString(budget.budget().toSeconds()));
      }
      for (SecretFinding s : found) {
        if (!SecretScanner.isGeneric(s.detectorId()) && r.runsDetector(s.detectorId())) {
          // No line: "the commit message holds …".
          return new ContentFinding(shown, where, r, ContentFinding.Kind.SECRET,
              s.detectorId() + ":0");
        }
      }
    }
    return null;
  }

  private static boolean takenFromAParent(TreeWalk tw, int self) {
    for (int p = 0; p < self; p++) {
      if (tw.getRawMode(p) != 0 && tw.idEqual(p, self)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The finding of the first rule that matches the file, or null when none does.
   *
   * @param path null for a blob a ref points at: it has no path, and only rules without {@code
   *     paths} and {@code files} apply to it
   * @param shown what a finding calls the file
   */
  private ContentFinding judgeFile(String path, String shown, ObjectId id, FileMode mode,
      String commit) throws IOException {
    boolean blob = (mode.getObjectType() == Constants.OBJ_BLOB);
    String linkTarget = path != null && mode == FileMode.SYMLINK ? linkTarget(id) : null;
    for (ContentRule r : rules.rules()) {
      if (linkTarget != null && !r.covers(path) && r.coversLinkTarget(linkTarget)) {
        return new ContentFinding(shown, commit, r, ContentFinding.Kind.PATH,
            "a symlink to " + UntrustedText.printable(linkTarget));
      }
      if (path == null ? !r.paths().isEmpty() || !r.files().isEmpty() : !r.covers(path)) {
        continue;
      }
      if (!r.readsContent()) {
        return new ContentFinding(shown, commit, r, ContentFinding.Kind.PATH, "");
      }
      if (!blob) {
        continue; // a submodule has no content here to judge
      }
      if (r.maxSize().isPresent()) {
        long size = reader.getObjectSize(id, Constants.OBJ_BLOB);
        if (size > r.maxSize().getAsLong()) {
          return new ContentFinding(shown, commit, r, ContentFinding.Kind.SIZE,
              Long.toString(size));
        }
      }
      if (!r.binary() && r.secrets().isEmpty()) {
        continue; // a size rule only, and the file is within it
      }
      boolean isBinary = isBinary(id);
      if (r.binary() && isBinary) {
        return new ContentFinding(shown, commit, r, ContentFinding.Kind.BINARY, "");
      }
      if (!r.secrets().isEmpty()) {
        List<SecretFinding> found;
        try {
          found = secretsOf(path == null ? "" : path, id, isBinary);
        } catch (JudgementBudget.OutOfTime e) {
          return new ContentFinding(shown, commit, r, ContentFinding.Kind.NOT_JUDGED,
              Long.toString(budget.budget().toSeconds()));
        }
        for (SecretFinding s : found) {
          if (r.runsDetector(s.detectorId())) {
            return new ContentFinding(shown, commit, r, ContentFinding.Kind.SECRET,
                s.detectorId() + ":" + s.line());
          }
        }
      }
    }
    return null;
  }

  /** A symlink's target as git stores it, its blob: at most a path's length is read. */
  private String linkTarget(ObjectId id) throws IOException {
    try (InputStream in = reader.open(id, Constants.OBJ_BLOB).openStream()) {
      return new String(in.readNBytes(LINK_TARGET_MAX), java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  private boolean isBinary(ObjectId id) throws IOException {
    Boolean known = binary.get(id);
    if (known != null) {
      return known;
    }
    boolean nul = false;
    try (InputStream in = openStreamed(id)) {
      byte[] head = in.readNBytes(BINARY_PROBE);
      for (byte b : head) {
        if (b == 0) {
          nul = true;
          break;
        }
      }
    }
    if (binary.size() >= MAX_CACHED) {
      binary.clear();
    }
    binary.put(id.copy(), nul);
    return nul;
  }

  /**
   * The blob as a stream that inflates only what is read: git's binary test reads {@value
   * #BINARY_PROBE} bytes, and a blob under {@link #STREAM_ABOVE} opened as usual is inflated
   * whole first (a push of 900 KiB blobs would read back nearly all of its pack for the test).
   */
  private InputStream openStreamed(ObjectId id) throws IOException {
    reader.setStreamFileThreshold(BINARY_PROBE);
    try {
      return reader.open(id, Constants.OBJ_BLOB).openStream();
    } finally {
      reader.setStreamFileThreshold(STREAM_ABOVE);
    }
  }

  /**
   * Every detector any rule runs, over the blob at the path (gitleaks' path conditions depend on
   * it). Binary blobs are not scanned for secrets (gitleaks skips them too); their path-only
   * detectors still apply.
   */
  private List<SecretFinding> secretsOf(String path, ObjectId id, boolean isBinary)
      throws IOException {
    String key = id.name() + " " + path;
    List<SecretFinding> known = secrets.get(key);
    if (known != null) {
      return known;
    }
    List<SecretFinding> found = new ArrayList<>(scanner.byPath(path, detectors::anyRuleRuns));
    if (!isBinary) {
      ObjectLoader loader = reader.open(id, Constants.OBJ_BLOB);
      try (InputStream in = new Deadline(loader.openStream())) {
        found.addAll(scanner.scan(in, loader.getSize(), path, detectors.forFiles()));
      }
    }
    // A specific detector names the secret better than gitleaks' generic ones (as gitleaks
    // itself prefers it when both match the same text).
    found.sort(java.util.Comparator.comparing((SecretFinding f) ->
        SecretScanner.isGeneric(f.detectorId())).thenComparingLong(SecretFinding::line));
    if (secrets.size() >= MAX_CACHED) {
      secrets.clear();
    }
    secrets.put(key, found);
    return found;
  }

  @Override
  public void close() {
    reader.close();
  }

  /** A blob's stream that ends the scan once the push's budget is spent or nobody waits. */
  private final class Deadline extends java.io.FilterInputStream {
    Deadline(InputStream in) {
      super(in);
    }

    @Override
    public int read() throws IOException {
      check();
      return super.read();
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      check();
      return super.read(b, off, len);
    }

    private void check() throws IOException {
      budget.check();
    }
  }
}
