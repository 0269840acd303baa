package dev.pushgate.gateway;

import dev.pushgate.policy.ContentRules;
import dev.pushgate.policy.Decision;
import dev.pushgate.policy.Judgement;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.eclipse.jgit.errors.CorruptObjectException;
import org.eclipse.jgit.internal.storage.dfs.DfsRepositoryDescription;
import org.eclipse.jgit.internal.storage.dfs.InMemoryRepository;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectChecker;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.Repository;

/**
 * What a write that is not a push would put on GitHub, as the door it came through (the REST or
 * GraphQL API) reads it: files with their bytes, names placed without their bytes, nameless blobs,
 * and text that becomes visible (messages, names). {@link #judge} hands it to the push path's own
 * judge ({@link ContentJudge}) with the run's content rules, so a file refused in a push is refused
 * here in the same words. A door only reads; it never judges content itself.
 */
public final class ProposedContent {
  /** A write with more parts than this is refused unjudged: each part costs a scan. */
  public static final int MAX_PARTS = 1000;

  private final Map<String, byte[]> files = new LinkedHashMap<>();
  private final List<String> names = new ArrayList<>();
  private final List<byte[]> blobs = new ArrayList<>();
  private final Map<String, String> texts = new LinkedHashMap<>();
  /** Every path given, to find one given twice in constant time per path. */
  private final java.util.Set<String> paths = new java.util.HashSet<>();
  private boolean duplicated;

  /** A file at {@code path} (from the repository's root) with these bytes. */
  public ProposedContent file(String path, byte[] bytes) {
    duplicated |= !paths.add(path);
    files.put(path, bytes.clone());
    return this;
  }

  /** A file or submodule placed at {@code path} by an object id: its name alone is judged here. */
  public ProposedContent name(String path) {
    duplicated |= !paths.add(path);
    names.add(path);
    return this;
  }

  /** Content with no name yet (an uploaded blob): judged by the rules for every file. */
  public ProposedContent blob(byte[] bytes) {
    blobs.add(bytes.clone());
    return this;
  }

  /**
   * Text that becomes visible on GitHub, called {@code what} in a finding ("the commit message",
   * "the tag name"). Text given twice under one name is joined.
   */
  public ProposedContent text(String what, String text) {
    texts.merge(what, text, (a, b) -> a + "\n" + b);
    return this;
  }

  /**
   * The files this write adds or changes, for an approver: {@code a.txt (12 bytes), b/c.py (3
   * bytes)}, at most ten, then how many more; names placed by id say so. Empty when none.
   */
  public String files() {
    List<String> shown = new ArrayList<>();
    files.forEach((p, b) -> shown.add(printable(p) + " (" + b.length + " bytes)"));
    names.forEach(p -> shown.add(printable(p) + " (an object by id)"));
    int more = shown.size() - 10;
    return more > 0 ? String.join(", ", shown.subList(0, 10)) + " and " + more + " more"
        : String.join(", ", shown);
  }

  private static String printable(String s) {
    return dev.pushgate.types.UntrustedText.printable(s); // bounded, escaped
  }

  /**
   * The content rules' judgement of everything proposed, in the words a push's refusal uses
   * ({@code config/.env matches "no secret files"}), or empty when no rule asks or denies. A path
   * git would not take (empty, {@code .}, {@code ..} or {@code .git} segments, a NUL) or a path
   * given twice is denied: what is judged must be what lands.
   *
   * @param where what the audit says brought the files (e.g. {@code PUT contents})
   */
  public Optional<Judgement> judge(ContentRules rules, String where) {
    return judge(RuleDetectors.of(Objects.requireNonNull(rules, "rules")), where);
  }

  /**
   * As {@link #judge(ContentRules, String)}, by the rules of {@code detectors}, with the
   * detectors they run picked once for many judgements (a run's API writes).
   */
  public Optional<Judgement> judge(RuleDetectors detectors, String where) {
    Objects.requireNonNull(detectors, "detectors");
    int parts = files.size() + names.size() + blobs.size() + texts.size();
    if (parts > MAX_PARTS) {
      return Optional.of(refused("it writes " + parts + " files, blobs or texts at once; pushgate"
          + " judges at most " + MAX_PARTS + " in one call"));
    }
    // The refusals below never quote a path: it may be the very secret (it is judged as text
    // only once it is a path git takes).
    if (duplicated) {
      return Optional.of(refused("it gives one path twice"));
    }
    ObjectChecker checker = new ObjectChecker();
    for (String path : allPaths()) {
      try {
        checker.checkPath(path);
      } catch (CorruptObjectException e) {
        return Optional.of(refused("it names a path git does not take (an empty, ., .. or .git"
            + " segment, a leading or trailing slash, or a NUL)"));
      }
    }
    Map<String, ObjectId> fileIds = new LinkedHashMap<>();
    if (files.isEmpty() && blobs.isEmpty()) {
      // No bytes to store (a comment's text, names placed by id): judged without a repository
      // of the call's own, which was a third of judging a comment (issue 33).
      names.forEach(p -> fileIds.put(p, null));
      return judged(NO_OBJECTS, detectors, fileIds, List.of(), where);
    }
    try (InMemoryRepository db = new InMemoryRepository(new DfsRepositoryDescription("api"));
        ObjectInserter in = db.newObjectInserter()) {
      files.forEach((p, b) -> fileIds.put(p, insert(in, b)));
      names.forEach(p -> fileIds.put(p, null));
      List<ObjectId> blobIds = blobs.stream().map(b -> insert(in, b)).toList();
      in.flush();
      return judged(db, detectors, fileIds, blobIds, where);
    } catch (IOException | java.io.UncheckedIOException e) {
      return Optional.of(refused("its content could not be judged"));
    }
  }

  /**
   * A repository holding no object, never written: where a proposal with no bytes to store is
   * judged (its files are named by id, read by their names alone).
   */
  private static final InMemoryRepository NO_OBJECTS =
      new InMemoryRepository(new DfsRepositoryDescription("api-no-objects"));

  /** The content judge's findings on what is proposed, its objects in {@code db}. */
  private Optional<Judgement> judged(Repository db, RuleDetectors detectors,
      Map<String, ObjectId> fileIds, List<ObjectId> blobIds, String where) {
    Map<String, byte[]> textBytes = new LinkedHashMap<>();
    if (!allPaths().isEmpty()) {
      // A finding says "a path of the write", never the path: it may be the secret.
      textBytes.put("a path of the write", String.join("\n", allPaths())
          .getBytes(StandardCharsets.UTF_8));
    }
    texts.forEach((w, t) -> textBytes.put(w, t.getBytes(StandardCharsets.UTF_8)));
    try (ContentJudge judge = new ContentJudge(db, detectors,
        JudgementBudget.of(ContentJudge.BUDGET))) {
      return ContentVerdict.alone(judge.findings(fileIds, blobIds, textBytes, where));
    } catch (IOException | java.io.UncheckedIOException e) {
      return Optional.of(refused("its content could not be judged"));
    }
  }

  private List<String> allPaths() {
    List<String> all = new ArrayList<>(files.keySet());
    all.addAll(names);
    return all;
  }

  private static ObjectId insert(ObjectInserter in, byte[] bytes) {
    try {
      return in.insert(Constants.OBJ_BLOB, bytes);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static Judgement refused(String why) {
    return new Judgement(Decision.DENY, "content", why + ", so it is denied");
  }
}
