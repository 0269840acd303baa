package dev.pushgate.gateway;

import jakarta.servlet.http.HttpServletRequest;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectChecker;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.transport.PreReceiveHook;
import org.eclipse.jgit.transport.PreReceiveHookChain;
import org.eclipse.jgit.transport.ReceiveCommand;
import org.eclipse.jgit.transport.ReceivePack;
import org.eclipse.jgit.transport.resolver.ReceivePackFactory;
import org.eclipse.jgit.transport.resolver.ServiceNotAuthorizedException;

/** Sets up a receive-pack on a repository's cache whose every command goes through the rule. */
final class GatewayReceivePackFactory implements ReceivePackFactory<HttpServletRequest> {
  /** The largest object one push may carry: GitHub's own limit for a file. */
  static final long MAX_OBJECT_BYTES = 100L * 1024 * 1024;

  private final GatewayServices services;

  GatewayReceivePackFactory(GatewayServices services) {
    this.services = services;
  }

  /** A receive-pack for the {@link Push} the filter let through; none for any other request. */
  @Override
  public ReceivePack create(HttpServletRequest req, Repository db)
      throws ServiceNotAuthorizedException {
    Push push = Push.of(req).orElseThrow(ServiceNotAuthorizedException::new);
    if (!(db instanceof CacheRepository cache)) {
      throw new IllegalStateException("a push is received into a gateway cache, not " + db);
    }
    push.watchClient(req);
    ReceivedObjectChecker fsck = new ReceivedObjectChecker();
    // A thin pack's bases are those the advertised branches and tags reach, as the run may
    // fetch them (Reach); the receive-pack knows them once it has advertised. Decided within the
    // push's judgement budget; past it, the cache is compacted with bitmaps for the next push.
    AtomicReference<ReceivePack> receivePack = new AtomicReference<>();
    ThinPackBases.Rule reached = (reader, ids) ->
        Reach.unreached(reader, receivePack.get().getAdvertisedObjects(), ids,
            ReachBound.of(push.judgementBudget(ContentJudge.BUDGET, services.threads()::closed)),
            () -> services.cache().compactWithBitmaps(push.repo()));
    // JGit makes the pack parser from the repository: this view makes the push's. Its .keep
    // goes after the answer, under the repository's lock once the refs it landed are written,
    // so that no compaction finds the pack without it while they are not (LandedRefs).
    // A small pack is held in memory, for the cache once upstream took it (ReceivedInMemory);
    // given back at the push's end otherwise.
    ReceivingCache receiving = new ReceivingCache(cache, push.packCopy(),
        unkeep -> push.afterAnswer(
            () -> services.cache().unkeepAfterLandedRefs(push.repo(), unkeep)), reached, true);
    push.afterAnswer(() -> receiving.held().ifPresent(ReceivedInMemory::releaseUnlessHandedOver));
    ReceivePack rp = new ReceivePack(receiving) {
      {
        // The same walk as JGit's check, counting what the pack carries beyond it.
        connectivityChecker = new PackReachCheck(
            n -> push.streamed().ifPresent(s -> s.carriesUnreached(n)),
            fsck::gitmodulesNotReceived);
      }
    };
    receivePack.set(rp);
    // The rule decides about creates, deletes and force-pushes, not receive-pack's defaults.
    rp.setAllowCreates(true);
    rp.setAllowDeletes(true);
    rp.setAllowNonFastForwards(true);
    rp.setAtomic(true);
    rp.setAllowPushOptions(true);
    rp.setCheckReferencedObjectsAreReachable(true);
    // Git's fsck on every received object, as GitHub runs it: a tree naming an entry "..",
    // ".git" (in any case, or with what HFS+ or NTFS ignore), holding a '/' or a name twice,
    // is refused here, before any rule judges paths a checkout would never write.
    rp.setObjectChecker(fsck.setSafeForMacOS(true).setSafeForWindows(false)
        .setIgnore(java.util.EnumSet.of(ObjectChecker.ErrorType.ZERO_PADDED_FILEMODE,
            ObjectChecker.ErrorType.MISSING_EMAIL, ObjectChecker.ErrorType.BAD_EMAIL,
            ObjectChecker.ErrorType.MISSING_SPACE_BEFORE_DATE, ObjectChecker.ErrorType.BAD_DATE,
            ObjectChecker.ErrorType.BAD_TIMEZONE)));
    rp.setMaxPackSizeLimit(services.config().maxPackBytes());
    // The same bound PackHeaderGuard refuses with a reason before JGit reads the list.
    rp.setMaxCommandBytes(PackHeaderGuard.MAX_COMMAND_BYTES);
    // JGit allocates a commit, tree or tag at the size its header declares: a few bytes that
    // claim 2 GB would take the heap. GitHub refuses objects this large anyway.
    rp.setMaxObjectSizeLimit(MAX_OBJECT_BYTES);
    // No rp.setTimeout: it starts a thread for every push. GatewayFilter bounds the client's
    // reads (ClientReadTimeout); writes to a client that stopped reading end at Jetty's idle
    // timeout.
    rp.setRefFilter(GatewayReceivePackFactory::branchesAndTags);
    push.upstreamRefs().ifPresent(refs -> rp.setAdvertiseRefsHook(new UpstreamAdvertisement(refs)));
    rp.setPreReceiveHook(PreReceiveHookChain.newChain(List.<PreReceiveHook>of(
        GatewayReceivePackFactory::refuseFunnyRefNames,
        new PushHook(push, services))));
    return rp;
  }

  /**
   * JGit checks {@code .lock} at the end of a ref name only; git refuses it at the end of any
   * component ({@code refs/heads/x.lock/y}), whose directory would block every update of
   * {@code refs/heads/x}. Refused here as git's receive-pack does; the push hook then audits it.
   */
  private static void refuseFunnyRefNames(ReceivePack rp, Collection<ReceiveCommand> commands) {
    for (ReceiveCommand c : commands) {
      if (c.getResult() == ReceiveCommand.Result.NOT_ATTEMPTED
          && (c.getRefName() + "/").contains(".lock/")) {
        c.setResult(ReceiveCommand.Result.REJECTED_OTHER_REASON, "funny refname");
      }
    }
  }

  private static Map<String, Ref> branchesAndTags(Map<String, Ref> refs) {
    Map<String, Ref> shown = new LinkedHashMap<>();
    refs.forEach((name, ref) -> {
      if (name.startsWith(Constants.R_HEADS) || name.startsWith(Constants.R_TAGS)) {
        shown.put(name, ref);
      }
    });
    return shown;
  }
}
