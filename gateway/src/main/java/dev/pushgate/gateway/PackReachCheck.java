package dev.pushgate.gateway;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.function.IntConsumer;
import java.util.function.Supplier;
import org.eclipse.jgit.errors.IncorrectObjectTypeException;
import org.eclipse.jgit.errors.MissingObjectException;
import org.eclipse.jgit.internal.submodule.SubmoduleValidator;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.GitmoduleEntry;
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
  private final Supplier<List<GitmoduleEntry>> gitmodulesNotReceived;

  /** @param unreached told how many of the pack's objects the commands do not reach, if any */
  PackReachCheck(IntConsumer unreached) {
    this(unreached, List::of);
  }

  /**
   * @param gitmodulesNotReceived the {@code .gitmodules} files of the pack's trees whose blob the
   *     pack does not carry ({@link ReceivedObjectChecker}): checked here, once the walk has
   *     shown upstream's refs reach them
   */
  PackReachCheck(IntConsumer unreached, Supplier<List<GitmoduleEntry>> gitmodulesNotReceived) {
    this.unreached = unreached;
    this.gitmodulesNotReceived = gitmodulesNotReceived;
  }

  /**
   * JGit's walk, whose every failure for want of an object (missing, or not of the type the
   * pack's objects say) is one answer, {@link AbsentObjects}: the walk reads what the cache
   * holds, so its own words (a type, which object failed first) would tell an object only a
   * refused push left there from one nobody has. Whether it fails is the rule already: an object
   * the commands reach must be in the pack or reachable from upstream's refs, which never reach
   * a refused push's objects.
   */
  @Override
  public void checkConnectivity(ConnectivityCheckInfo info, Set<ObjectId> haves,
      ProgressMonitor pm) throws IOException {
    try {
      walk(info, haves, pm);
    } catch (MissingObjectException | IncorrectObjectTypeException e) {
      throw new AbsentObjects();
    }
  }

  private void walk(ConnectivityCheckInfo info, Set<ObjectId> haves, ProgressMonitor pm)
      throws IOException {
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
        checkGitmodules(ow);
      }
    }
    long notReached = inPack.size() - reached;
    if (notReached > 0) {
      unreached.accept((int) Math.min(Integer.MAX_VALUE, notReached));
    }
  }

  /**
   * Git's check of a {@code .gitmodules} file a pushed tree names without the pack carrying it,
   * as JGit's receive-pack makes of one the pack carries; only of one this walk found upstream's
   * refs reach. One whose tree no command reaches is not forwarded, and is not read: it may be an
   * object only a refused push left in the cache.
   */
  private void checkGitmodules(ObjectWalk ow) throws IOException {
    for (GitmoduleEntry e : gitmodulesNotReceived.get()) {
      RevObject blob = ow.lookupOrNull(e.getBlobId());
      if (blob != null && blob.has(RevFlag.UNINTERESTING)) {
        byte[] raw = ow.getObjectReader().open(blob, Constants.OBJ_BLOB).getCachedBytes();
        try {
          SubmoduleValidator.assertValidGitModulesFile(new String(raw, StandardCharsets.UTF_8));
        } catch (SubmoduleValidator.SubmoduleValidationException invalid) {
          throw new IOException(invalid.getMessage(), invalid);
        }
      }
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
