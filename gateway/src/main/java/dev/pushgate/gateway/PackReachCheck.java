package dev.pushgate.gateway;

import java.io.IOException;
import java.util.Set;
import java.util.function.IntConsumer;
import org.eclipse.jgit.errors.MissingObjectException;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectIdSubclassMap;
import org.eclipse.jgit.lib.ProgressMonitor;
import org.eclipse.jgit.revwalk.ObjectWalk;
import org.eclipse.jgit.revwalk.RevBlob;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevFlag;
import org.eclipse.jgit.revwalk.RevObject;
import org.eclipse.jgit.revwalk.RevSort;
import org.eclipse.jgit.revwalk.RevTree;
import org.eclipse.jgit.transport.ConnectivityChecker;
import org.eclipse.jgit.transport.PackParser;
import org.eclipse.jgit.transport.ReceiveCommand;

/**
 * JGit's connectivity check of a received pack ({@code FullConnectivityChecker}: every object the
 * commands' new ids reach and upstream's refs do not must be in the pack or already reachable),
 * which also counts the pack's objects that walk does not reach. The content rules judge only
 * what the commands reach; an object no command reaches (a blob sent beside an innocent commit)
 * is judged by nothing, and upstream keeps every object of a pack it is sent, readable by its id.
 * The count tells the streamed copy it may not complete such a pack: the push is then stored and
 * forwarded, which sends upstream only what the commands reach. The same walk JGit makes anyway,
 * so a push costs no second walk. Real git sends objects beyond that walk only when it cannot
 * know upstream has them (a client behind upstream): such a push loses its streaming, not its
 * landing.
 */
final class PackReachCheck implements ConnectivityChecker {
  private final IntConsumer unreached;

  /** @param unreached told how many of the pack's objects the commands do not reach, if any */
  PackReachCheck(IntConsumer unreached) {
    this.unreached = unreached;
  }

  @Override
  public void checkConnectivity(ConnectivityCheckInfo info, Set<ObjectId> haves,
      ProgressMonitor pm) throws IOException {
    PackParser parser = info.getParser();
    ObjectIdSubclassMap<ObjectId> inPack = parser.getNewObjectIds();
    long reached = 0;
    // On the receive-pack's own reader, which JGit's walk of the commands reads with next: a new
    // reader costs a push its configuration lookups and caches again.
    try (ObjectWalk ow = new ObjectWalk(info.getWalk().getObjectReader())) {
      if (markStartAndKnown(info, ow, haves)) {
        for (RevCommit c; (c = ow.next()) != null; ) {
          pm.update(1);
          if (!c.has(RevFlag.UNINTERESTING)) {
            requireInPack(info, inPack, c);
            reached++;
          }
        }
        for (RevObject o; (o = ow.nextObject()) != null; ) {
          pm.update(1);
          if (!o.has(RevFlag.UNINTERESTING)) {
            requireInPack(info, inPack, o);
            reached++;
          }
        }
        if (info.isCheckObjects()) {
          for (ObjectId id : parser.getBaseObjectIds()) {
            RevObject o = ow.parseAny(id);
            if (!o.has(RevFlag.UNINTERESTING)) {
              throw new MissingObjectException(o, o.getType());
            }
          }
        }
      }
    }
    long notReached = inPack.size() - reached;
    if (notReached > 0) {
      unreached.accept((int) Math.min(Integer.MAX_VALUE, notReached));
    }
  }

  private static void requireInPack(ConnectivityCheckInfo info,
      ObjectIdSubclassMap<ObjectId> inPack, RevObject o) throws IOException {
    if (info.isCheckObjects()) {
      if (!inPack.contains(o)) {
        throw new MissingObjectException(o, o.getType());
      }
    } else if (o instanceof RevBlob && !info.getRepository().getObjectDatabase().has(o)) {
      throw new MissingObjectException(o, Constants.TYPE_BLOB);
    }
  }

  /** As JGit marks them: the commands' new ids interesting, what upstream has not. */
  private static boolean markStartAndKnown(ConnectivityCheckInfo info, ObjectWalk ow,
      Set<ObjectId> haves) throws IOException {
    boolean thin = info.isCheckObjects() && !info.getParser().getBaseObjectIds().isEmpty();
    if (info.isCheckObjects()) {
      ow.sort(RevSort.TOPO);
      if (thin) {
        ow.sort(RevSort.BOUNDARY, true);
      }
    }
    boolean interesting = false;
    for (ReceiveCommand cmd : info.getCommands()) {
      if (cmd.getResult() != ReceiveCommand.Result.NOT_ATTEMPTED
          || cmd.getType() == ReceiveCommand.Type.DELETE || haves.contains(cmd.getNewId())) {
        continue;
      }
      ow.markStart(ow.parseAny(cmd.getNewId()));
      interesting = true;
    }
    if (!interesting) {
      return false;
    }
    for (ObjectId have : haves) {
      RevObject o = ow.parseAny(have);
      ow.markUninteresting(o);
      if (thin) {
        o = ow.peel(o);
        if (o instanceof RevCommit c) {
          o = c.getTree();
        }
        if (o instanceof RevTree) {
          ow.markUninteresting(o);
        }
      }
    }
    return true;
  }
}
