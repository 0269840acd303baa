package dev.pushgate.gateway;

import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.eclipse.jgit.errors.MissingObjectException;
import org.eclipse.jgit.lib.AnyObjectId;
import org.eclipse.jgit.lib.ObjectDatabase;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.ObjectReader;

/**
 * The cache as a pack parser reads it: every object, but a thin pack's delta base only if the
 * {@link Rule} lets the pack use it. A base the rule refuses reads as absent, before a byte of it
 * is read: the thin pack is not completed with it, and nothing of it (its type, its size through
 * a delta that declares another, the object a delta would make of it) shapes the answer. JGit's
 * parser reads the cache through the reader this makes, for its bases and its collision checks;
 * only the ids a {@code REF_DELTA} of the pack names as its base, and the pack itself does not
 * hold, are judged, once, together, when the first of them is read.
 */
final class ThinPackBases extends ObjectDatabase {
  /** Which of the cache's objects a pack may be completed with. */
  interface Rule {
    /** Any: a sync's pack comes from upstream, whose bases are upstream's. */
    Rule ANY = (reader, ids) -> Set.of();

    /** Of {@code ids}, each held by the cache, those the pack may not use. */
    Set<ObjectId> unreached(ObjectReader reader, Set<ObjectId> ids) throws IOException;
  }

  private final ObjectDatabase cache;
  private final Rule rule;
  /** The ids the pack's {@code REF_DELTA}s name as their base. */
  private final Set<ObjectId> named = new HashSet<>();
  /** Of the bases judged so far, whether the rule lets the pack use each. */
  private final Map<ObjectId, Boolean> usable = new HashMap<>();
  private Predicate<AnyObjectId> inPack = id -> false;

  ThinPackBases(ObjectDatabase cache, Rule rule) {
    this.cache = cache;
    this.rule = rule;
  }

  /** A {@code REF_DELTA} of the pack names {@code base}. */
  void namedAsBase(AnyObjectId base) {
    if (rule != Rule.ANY) {
      named.add(base.copy());
    }
  }

  /** Tells which ids the pack holds, resolved: a base among them is the pack's own. */
  void heldBy(Predicate<AnyObjectId> pack) {
    this.inPack = pack;
  }

  @Override
  public ObjectReader newReader() {
    ObjectReader reader = cache.newReader();
    return CheckedOpens.of(reader, id -> {
      if (refused(reader, id)) {
        throw new MissingObjectException(id.copy(), "unknown");
      }
    });
  }

  private boolean refused(ObjectReader reader, AnyObjectId id) throws IOException {
    if (!named.contains(id) || inPack.test(id)) {
      return false;
    }
    if (!usable.containsKey(id)) {
      judgeBases(reader);
    }
    return !usable.getOrDefault(id, false);
  }

  /**
   * Every base not judged yet, at once: one walk for the pack's bases, not one each. A base the
   * cache lacks is judged too, as {@link Reach} judges every id alike: refused at once, it would
   * answer unlike a refused push's object past the walk's bound, and tell which the cache holds.
   */
  private void judgeBases(ObjectReader reader) throws IOException {
    Set<ObjectId> asked = new HashSet<>();
    for (ObjectId base : named) {
      if (!usable.containsKey(base) && !inPack.test(base)) {
        asked.add(base);
      }
    }
    Set<ObjectId> unreached = asked.isEmpty() ? Set.of() : rule.unreached(reader, asked);
    for (ObjectId base : asked) {
      usable.put(base, !unreached.contains(base));
    }
  }

  @Override
  public ObjectInserter newInserter() {
    return cache.newInserter();
  }

  @Override
  public long getApproximateObjectCount() {
    return cache.getApproximateObjectCount();
  }

  /** The cache's to close, not this view's. */
  @Override
  public void close() {
    // nothing of its own
  }
}
