package dev.pushgate.gateway;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectIdRef;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.SymbolicRef;

/**
 * The cache's fetch of one repository that a fetch's advertisement started and did not wait for
 * ({@link UpstreamCache#syncForFetch}), which one client may read as it arrives: upstream's refs as
 * listed, to be advertised meanwhile, and, once the cache sent its request, what it asked upstream
 * for. A client whose request upstream's answer fully serves reads the pack from the {@link
 * PackSpool} ({@link StreamedFetch}); any other waits for the cache, as before.
 */
final class FetchStream {
  private final Map<String, Ref> advertised;
  private final PackSpool spool;
  private Set<ObjectId> wants;
  private Set<ObjectId> haves;
  private boolean decided;

  FetchStream(Map<String, Ref> advertised, PackSpool spool) {
    this.advertised = Map.copyOf(advertised);
    this.spool = spool;
  }

  /**
   * Upstream's branches and tags as {@code listed}, each annotated tag with the object {@code
   * peeled} names, and HEAD naming {@code head} if listed: refs an advertisement shows without
   * reading their objects, which the cache does not have yet.
   */
  static Map<String, Ref> advertised(Map<String, ObjectId> listed, Map<String, ObjectId> peeled,
      String head) {
    Map<String, Ref> refs = new TreeMap<>();
    listed.forEach((name, id) -> refs.put(name, peeled.containsKey(name)
        ? new ObjectIdRef.PeeledTag(Ref.Storage.NETWORK, name, id, peeled.get(name))
        : new ObjectIdRef.PeeledNonTag(Ref.Storage.NETWORK, name, id)));
    if (head != null && refs.containsKey(head)) {
      refs.put(Constants.HEAD, new SymbolicRef(Constants.HEAD, refs.get(head)));
    }
    return refs;
  }

  /** Upstream's branches, tags and HEAD as listed, peeled, not needing their objects. */
  Map<String, Ref> advertised() {
    return advertised;
  }

  /** Where the cache's parser hands the pack as it consumes it. */
  PackSpool spool() {
    return spool;
  }

  /** The cache asks upstream for {@code wants}, having {@code haves} and all they reach. */
  synchronized void asked(Set<ObjectId> wants, Set<ObjectId> haves) {
    this.wants = Set.copyOf(wants);
    this.haves = Set.copyOf(haves);
    decided = true;
    notifyAll();
  }

  /** The cache asks upstream for nothing, or failed before it asked. */
  synchronized void askedNothing(String why) {
    spool.fail(why);
    decided = true;
    notifyAll();
  }

  /** The pack a client reads as it arrives, and which of its haves the cache asked with. */
  record Claim(PackSpool.Reader pack, List<ObjectId> common) {}

  /** The pack for a client, or why the client is served from the cache once it has the pack. */
  record Outcome(Optional<Claim> claim, String notStreamed) {
    static Outcome streamed(Claim claim) {
      return new Outcome(Optional.of(claim), null);
    }

    static Outcome storedThenServed(String why) {
      return new Outcome(Optional.empty(), why);
    }
  }

  /**
   * The pack for a client that wants {@code clientWants} and has {@code clientHaves}, if upstream's
   * answer to the cache is that pack and nobody took it: every want is one the cache asked for,
   * and the client has every object the cache said it has (so nothing the pack leaves out is
   * missing on the client's side). Without {@code done}, the client waits to hear of a have in
   * common, which only the cache's haves are acknowledged as (those of its refs, as upstream
   * lists them): none, and the client is left to the cache. Waits until the cache sent its
   * request, which it does at once.
   */
  Outcome claim(Set<ObjectId> clientWants, List<ObjectId> clientHaves, boolean done)
      throws InterruptedException {
    List<ObjectId> common;
    synchronized (this) {
      while (!decided) {
        wait();
      }
      if (wants == null) {
        return Outcome.storedThenServed("the cache's fetch ended before it asked upstream");
      }
      if (clientWants.isEmpty() || !wants.containsAll(clientWants)) {
        return Outcome.storedThenServed("it wants objects the cache did not ask upstream for");
      }
      if (!new java.util.HashSet<>(clientHaves).containsAll(haves)) {
        return Outcome.storedThenServed("its haves (" + clientHaves.size()
            + ") do not name every tip the cache asked with (" + haves.size() + ")");
      }
      common = clientHaves.stream().filter(haves::contains).distinct().toList();
    }
    if (!done && common.isEmpty()) {
      return Outcome.storedThenServed("its first round names nothing in common");
    }
    return spool.claim().map(pack -> Outcome.streamed(new Claim(pack, common))).orElseGet(
        () -> Outcome.storedThenServed("another client reads the pack, or it has arrived"));
  }
}
