package dev.pushgate.gateway;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectIdRef;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.SymbolicRef;

/**
 * The cache's fetch of one repository that a fetch's advertisement started and did not wait for
 * ({@link UpstreamCache#syncForFetch}), which one client may read as it arrives: upstream's refs as
 * listed, to be advertised meanwhile, and the pack, for the client whose request upstream's answer
 * fully serves ({@link StreamedFetch}); any other waits for the cache, as before.
 *
 * <p>The cache's request goes upstream once a client's request is known, with the haves of that
 * client which the cache's branches and tags reach ({@link CommonHaves}): then upstream's pack is
 * whole for both, whatever else the cache has that the client lacks (git's first round names only
 * its newest commits, and a client that fetched by URL has no ref for what it fetched). Until
 * that request comes, the gateway answers the client's negotiation rounds itself, acknowledging
 * those haves. Nobody within {@link #CLIENT_WAIT}, a request the stream cannot serve, or anyone
 * else waiting for the fetch, and the cache asks with its own tips, as a push's sync does.
 */
final class FetchStream {
  /**
   * How long the cache's fetch waits for its client's next request before it asks upstream alone:
   * git sends its request a few milliseconds after the advertisement, and each round at once
   * after the last; an {@code ls-remote} sends none. Pushes and other syncs of the repository do
   * not wait that long: they {@link #hurry} it.
   */
  static final Duration CLIENT_WAIT = Duration.ofSeconds(5);
  /**
   * However many rounds a client sends, the cache's fetch waits no longer than this after the
   * advertisement: it holds the repository's lock meanwhile, which the writer of landed refs
   * waits for without hurrying it. Git's rounds take milliseconds each on loopback.
   */
  static final Duration MAX_CLIENT_WAIT = Duration.ofSeconds(30);
  /** More haves in common than this are not sent upstream: the client is served from the cache. */
  static final int MAX_COMMON = 4096;

  private final Map<String, Ref> advertised;
  private final PackSpool spool;
  /** What the cache asks upstream for, and the commits its branches and tags name; once known. */
  private Set<ObjectId> wants;
  private Set<ObjectId> cacheHaves;
  /** The haves the cache asks upstream with, once decided. */
  private Set<ObjectId> asked;
  /** Whether {@link #asked} are a client's, who then reads the pack. */
  private boolean byClient;
  private boolean hurried;
  private boolean ended;
  private long waitUntil;
  /** No later than this, {@link #MAX_CLIENT_WAIT} after the advertisement. */
  private final long waitNoLaterThan;

  FetchStream(Map<String, Ref> advertised, PackSpool spool) {
    this.advertised = Map.copyOf(advertised);
    this.spool = spool;
    long now = System.nanoTime();
    this.waitUntil = now + CLIENT_WAIT.toNanos();
    this.waitNoLaterThan = now + MAX_CLIENT_WAIT.toNanos();
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

  /**
   * The haves the cache asks upstream with for {@code wants}, having {@code cacheHaves} (its tips,
   * peeled) and all they reach: those of the client whose request the pack will answer, if one
   * comes in time, else {@code cacheHaves}. Either way every object the pack leaves out is one
   * the cache has.
   */
  synchronized Set<ObjectId> haves(Set<ObjectId> wants, Set<ObjectId> cacheHaves)
      throws InterruptedIOException {
    this.wants = Set.copyOf(wants);
    this.cacheHaves = Set.copyOf(cacheHaves);
    notifyAll();
    try {
      for (long left; asked == null && !hurried && !ended
          && (left = waitUntil - System.nanoTime()) > 0; ) {
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for the fetch's client");
    }
    if (asked == null) {
      asked = this.cacheHaves;
    }
    return asked;
  }

  /** Someone else waits for the cache's fetch: it asks upstream now, with the cache's haves. */
  synchronized void hurry() {
    hurried = true;
    notifyAll();
  }

  /** The cache asks upstream for nothing, or failed before it asked, or its fetch ended. */
  synchronized void askedNothing(String why) {
    spool.fail(why);
    ended = true;
    notifyAll();
  }

  /** The pack a client reads as it arrives, and its haves to acknowledge as common. */
  record Claim(PackSpool.Reader pack, List<ObjectId> common) {}

  /** What a client's fetch request gets from the stream. */
  sealed interface Answer {
    /** A negotiation round, answered by acknowledging {@code common}: the client sends more. */
    record Round(List<ObjectId> common) implements Answer {}

    /** The pack as it arrives. */
    record Pack(Claim claim, boolean clientsHaves) implements Answer {}

    /** Nothing: the client waits for the cache and is served from it, because of {@code why}. */
    record Stored(String why) implements Answer {}
  }

  /**
   * What {@code request} gets: the pack, if upstream's answer to the cache is that pack and
   * nobody took it; a negotiation round, while its haves do not yet decide the pack; else
   * nothing. Only a request whose every want is one the cache asks for is served. Its haves
   * count only where the cache's branches and tags reach them ({@code common}); upstream is
   * asked with those (or with the cache's tips, if the cache asked alone, when they reach every
   * one of them), so nothing the pack leaves out is missing on the client's side, nor on the
   * cache's. Waits until the cache knows what it asks for, which it does at once.
   */
  Answer offer(StreamedFetch.Request request, CommonHaves.Finder common)
      throws IOException, InterruptedException {
    Set<ObjectId> tips;
    synchronized (this) {
      while (wants == null && !ended) {
        wait();
      }
      if (wants == null) {
        return new Answer.Stored("the cache's fetch ended before it asked upstream");
      }
      if (request.wants().isEmpty() || !wants.containsAll(request.wants())) {
        hurried = true;
        notifyAll();
        return new Answer.Stored("it wants objects the cache does not ask upstream for");
      }
      if (byClient || spool.ended()) {
        return new Answer.Stored("another client reads the pack, or it has arrived");
      }
      long next = System.nanoTime() + CLIENT_WAIT.toNanos();
      waitUntil = next - waitNoLaterThan < 0 ? next : waitNoLaterThan;
      tips = cacheHaves;
    }
    CommonHaves found = common.find(request.haves(), tips); // reads the cache: not under the lock
    synchronized (this) {
      if (byClient || spool.ended()) {
        return new Answer.Stored("another client reads the pack, or it has arrived");
      }
      if (found.common().size() > MAX_COMMON) {
        hurried = true;
        notifyAll();
        return new Answer.Stored("it names more than " + MAX_COMMON + " commits in common");
      }
      boolean decides = asked == null && !hurried;
      boolean ready = found.reachesAll() ? request.done() || !found.common().isEmpty()
          : decides && request.done();
      if (!ready) {
        if (request.done()) {
          return new Answer.Stored("its haves do not reach every tip the cache asked upstream"
              + " with (" + tips.size() + ")");
        }
        return new Answer.Round(found.common());
      }
      if (decides && found.lacksMany()) {
        // asked with these haves, upstream would resend what the cache holds (a history)
        hurried = true;
        notifyAll();
        return new Answer.Stored("the cache holds more than " + CommonHaves.MAX_LACKING
            + " commits its haves do not reach, which upstream would send again");
      }
      Optional<PackSpool.Reader> pack = spool.claim();
      if (pack.isEmpty()) {
        return new Answer.Stored("another client reads the pack, or it has arrived");
      }
      if (decides) {
        Set<ObjectId> haves = new LinkedHashSet<>(found.common());
        if (found.reachesAll()) {
          haves.addAll(tips);
        }
        asked = Set.copyOf(haves);
        byClient = true;
        notifyAll();
      }
      return new Answer.Pack(new Claim(pack.get(), found.common()), decides);
    }
  }
}
