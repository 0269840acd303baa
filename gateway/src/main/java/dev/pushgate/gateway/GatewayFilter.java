package dev.pushgate.gateway;

import dev.pushgate.types.AuditEntry;
import dev.pushgate.types.RepoSlug;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Future;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything decided before JGit sees a request, each once: the run's credential, its request
 * slot, the repository's name, and whether the run may reach it; then, before an advertisement, a
 * sync of the cache from upstream, and before a push's pack, the wait for that sync's fetch. JGit
 * only ever sees a request this filter has left a {@link Push} or {@link Fetch} on.
 * Refusals are answered as {@code text/plain}, which git prints after {@code remote:}.
 */
final class GatewayFilter implements Filter {
  private static final Logger log = LoggerFactory.getLogger(GatewayFilter.class);
  private static final List<String> SMART_HTTP_SUFFIXES =
      List.of("/info/refs", "/git-receive-pack", "/git-upload-pack");
  /** The largest fetch request body, as decoded ({@link FetchRequestBound}). */
  static final long MAX_FETCH_REQUEST_BYTES = 16L << 20;

  /** Why a fetch request body that cannot be read whole is malformed. */
  private static final String CUT_OR_NOT_GZIP =
      "its body is cut off or is not the gzip its Content-Encoding says";

  private final GatewayServices services;
  private final GatewayConfig config;
  private final RunAuthenticator authenticator;
  private final ClientReadTimeout clientReads;
  private final GatewayAdmission admission;
  private final RunSlots slots;
  private final PreMints preMints;

  GatewayFilter(GatewayServices services, RunAuthenticator authenticator) {
    this(services, authenticator, new GatewayAdmission(AdmissionLimits.DEFAULTS),
        new RunSlots(Gateway.DEFAULT_REQUESTS_PER_RUN), PreMints.off());
  }

  /**
   * @param slots how many git requests of one run the gateway works on at once; more are refused
   *     with 429 at once, so that one run's parallel or stalled pushes cannot take the request
   *     threads every run shares
   * @param preMints the write tokens minted at a push's advertisement
   */
  GatewayFilter(GatewayServices services, RunAuthenticator authenticator,
      GatewayAdmission admission, RunSlots slots, PreMints preMints) {
    this.services = services;
    this.preMints = preMints;
    this.admission = admission;
    this.slots = slots;
    this.config = services.config();
    this.authenticator = authenticator;
    this.clientReads =
        new ClientReadTimeout(config.clientTimeout(), services.threads().ticker());
  }

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    HttpServletRequest req = (HttpServletRequest) request;
    HttpServletResponse rsp = (HttpServletResponse) response;
    // Authenticated once, here; the run's slot is taken before anything else is done for it.
    Optional<RunContext> run = RunCredential.of(req).flatMap(authenticator::authenticate);
    if (run.isEmpty()) {
      gate(run, req, rsp, chain);
      return;
    }
    Optional<RunSlots.Slot> slot = slots.tryTake(run.get().runId());
    if (slot.isEmpty()) {
      log.info("run {}: git request refused, {} already in flight", run.get().runId(),
          slots.perRun());
      rsp.setHeader("Connection", "close");
      String why = Refusals.render("this run already has " + slots.perRun()
          + " git requests in flight; nothing was done, wait for those to finish and retry");
      if (GitErrorLine.isFetch(req)) {
        GitErrorLine.send(req, rsp, why); // git prints no text of a 429 to a fetch's POST
      } else {
        text(rsp, 429, why);
      }
      return;
    }
    try (RunSlots.Slot held = slot.get()) {
      gate(run, req, rsp, chain);
    }
  }

  /** Everything after the run's slot: the path, the run, the repository and its reach. */
  private void gate(Optional<RunContext> run, HttpServletRequest req, HttpServletResponse rsp,
      FilterChain chain) throws IOException, ServletException {
    Optional<String> notLiteral = LiteralGitPath.problem(req);
    if (notLiteral.isPresent()) {
      text(rsp, HttpServletResponse.SC_BAD_REQUEST, "Bad request: " + notLiteral.get());
      return;
    }
    if (run.isEmpty()) {
      text(rsp, HttpServletResponse.SC_UNAUTHORIZED,
          "Authentication failed: the run credential is unknown, expired or revoked.");
      return;
    }
    Optional<RepoSlug> repo = repositoryOf(req.getPathInfo());
    if (repo.isEmpty()) {
      text(rsp, HttpServletResponse.SC_NOT_FOUND,
          "Not a repository of the gateway: expected /git/" + config.gitHost()
              + "/<owner>/<repo>.git");
      return;
    }
    if (!run.get().mayReach(repo.get())) {
      String why = repo.get() + " is neither this run's repository nor attached to its workspace";
      auditRefusal(run.get(), repo.get(), why);
      text(rsp, HttpServletResponse.SC_FORBIDDEN, Refusals.render(why));
      return;
    }
    boolean infoRefs = req.getPathInfo().endsWith("/info/refs");
    String service = infoRefs ? req.getParameter("service") : null;
    if ("POST".equals(req.getMethod()) && req.getPathInfo().endsWith("/git-receive-pack")) {
      // admitted once its command list is read, so that a shed push is refused in git's words
      receive(run.get(), repo.get(), req, rsp, chain);
      return;
    }
    boolean fetch = GitErrorLine.isFetch(req);
    Optional<GatewayAdmission.Ticket> ticket = admission.tryAdmit(run.get().runId());
    if (ticket.isEmpty()) {
      shed(run.get(), repo.get(), req, rsp, fetch ? Door.FETCH : Door.PUSH, Limit.GATEWAY,
          admission.shedReason());
      return;
    }
    try (GatewayAdmission.Ticket admitted = ticket.get()) {
      admitted(run.get(), repo.get(), infoRefs, service, fetch, req, rsp, chain);
    }
  }

  /** A request other than a push's pack, once admitted. */
  private void admitted(RunContext run, RepoSlug repo, boolean infoRefs, String service,
      boolean fetch, HttpServletRequest req, HttpServletResponse rsp, FilterChain chain)
      throws IOException, ServletException {
    if (fetch) {
      fetch(run, repo, infoRefs, req, rsp, chain);
      return;
    }
    // Any other info/refs, not only a smart one: without a service, GitServlet would answer git's
    // dumb protocol and list the cache's refs.
    if (infoRefs) {
      if (!"git-receive-pack".equals(service)) {
        text(rsp, HttpServletResponse.SC_FORBIDDEN,
            "The gateway serves git's smart HTTP protocol only (git-upload-pack and"
                + " git-receive-pack).");
        return;
      }
      Optional<Map<String, ObjectId>> listed;
      try {
        UpstreamAccess upstream = services.upstream();
        listed = services.cache().syncAhead(repo, upstream.remoteUrl(repo),
            upstream.readToken(run, repo));
      } catch (UpstreamException e) {
        log.warn("run {}: sync of {} failed: {}", run.runId(), repo, e.getMessage());
        text(rsp, HttpServletResponse.SC_BAD_GATEWAY, Refusals.render(unreadableReason(repo)));
        return;
      } catch (RepositoryBusy e) {
        shed(run, repo, req, rsp, Door.PUSH, Limit.REPOSITORY, e.getMessage());
        return;
      }
      // the push that follows finds its write token minted, or on its way (PreMints' bounds)
      preMints.atAdvertisement(run, repo);
      Push advertisement = new Push(run, repo, Optional.empty(), services.upstream());
      listed.ifPresent(advertisement::advertiseUpstream);
      advertisement.attachTo(req);
      chain.doFilter(HandedOn.answeredAsIs(req), rsp);
      return;
    }
    // Any other request JGit serves: it sets up a receive-pack for it too, and finds the run on
    // the request.
    new Push(run, repo, Optional.empty(), services.upstream()).attachTo(req);
    chain.doFilter(req, rsp);
  }

  /** The gateway's doors, as the count of shed requests names them. */
  enum Door {
    /** upload-pack: clone, fetch, ls-remote */
    FETCH,
    /** receive-pack */
    PUSH;

    String id() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** Which bound shed a request: the gateway's limit, or one repository's wait. */
  enum Limit {
    GATEWAY,
    REPOSITORY;

    String id() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /**
   * A request shed by admission; nothing was done. A push's advertisement is answered {@code
   * 429} with the reason as text, which git prints after {@code remote:}. A fetch's requests are
   * answered in git's own error channel, an {@code ERR} packet line with {@code 200}, which git
   * prints as {@code fatal: remote error: <reason>}: for a {@code 429} to a POST (a protocol v2
   * ref listing, a negotiation) git prints only {@code RPC failed; HTTP 429}.
   */
  private void shed(RunContext run, RepoSlug repo, HttpServletRequest req,
      HttpServletResponse rsp, Door door, Limit limit, String reason) throws IOException {
    log.info("run {}: git request for {} shed: {}", run.runId(), repo, reason);
    services.metrics().onShed(door.id(), limit.id());
    rsp.setHeader("Retry-After", "1");
    if (door == Door.FETCH) {
      GitErrorLine.send(req, rsp, Refusals.render(reason));
    } else {
      text(rsp, 429, Refusals.render(reason));
    }
  }

  /**
   * A read (clone, fetch, ls-remote): served by JGit's upload-pack from the cache. Its first
   * request, the advertisement ({@code info/refs}; in protocol v2 the capabilities, which the
   * ref listing follows at once), reads upstream's ref list, so that the client sees upstream's
   * refs as they are now, even after pushes that did not go through the gateway; when upstream
   * moved, the cache fetches the objects it lacks meanwhile, and the ref listing shows upstream's
   * refs as listed. The request for a pack is answered with upstream's pack as the cache
   * receives it when that pack is what the client asks for ({@link StreamedFetch}); any other
   * waits for the cache's fetch and is answered from the cache. While it is served, the cache is
   * not compacted.
   */
  private void fetch(RunContext run, RepoSlug repo, boolean advertisement,
      HttpServletRequest req, HttpServletResponse rsp, FilterChain chain)
      throws IOException, ServletException {
    if (advertisement) {
      try {
        UpstreamAccess upstream = services.upstream();
        services.cache().syncForFetch(repo, upstream.remoteUrl(repo),
            upstream.readToken(run, repo));
      } catch (UpstreamException e) {
        log.warn("run {}: sync of {} for a fetch failed: {}", run.runId(), repo, e.getMessage());
        text(rsp, HttpServletResponse.SC_BAD_GATEWAY, Refusals.render("upstream " + repo
            + " cannot be read right now, so the gateway cannot serve it; try again"));
        return;
      } catch (RepositoryBusy e) {
        shed(run, repo, req, rsp, Door.FETCH, Limit.REPOSITORY, e.getMessage());
        return;
      }
    }
    HttpServletRequest served = req;
    FetchRequestBody request = null;
    Optional<FetchStream> inFlight = services.cache().inFlight(repo);
    Optional<Map<String, Ref>> advertised = inFlight.map(FetchStream::advertised);
    if (!advertisement) {
      byte[] body;
      try {
        served = clientReads.watch(FetchRequestBound.bound(req, MAX_FETCH_REQUEST_BYTES));
      } catch (org.eclipse.jgit.transport.ServiceMayNotContinueException e) {
        text(rsp, e.getStatusCode(), e.getMessage());
        return;
      } catch (java.util.zip.ZipException | java.io.EOFException e) {
        FetchErrors.refuseMalformed(req, rsp, CUT_OR_NOT_GZIP);
        return;
      }
      try {
        body = served.getInputStream().readAllBytes();
      } catch (org.eclipse.jgit.transport.ServiceMayNotContinueException e) {
        GitErrorLine.send(req, rsp, e.getMessage()); // past the bound: as JGit answered it
        return;
      } catch (java.util.zip.ZipException | java.io.EOFException e) {
        // a gzip body cut off or corrupt (or a client gone mid-body): the inflater's exception
        // would otherwise leave as an internal error
        FetchErrors.refuseMalformed(req, rsp, CUT_OR_NOT_GZIP);
        return;
      }
      boolean v2 = GatewayUploadPackFactory.asksForV2(req);
      try {
        request = FetchRequestBody.read(body, v2);
      } catch (FetchRequestBody.Malformed e) {
        FetchErrors.refuseMalformed(req, rsp, e.getMessage());
        return;
      }
      Optional<String> unserved = request.unserved();
      if (unserved.isPresent()) {
        FetchErrors.refuseUnserved(req, rsp, unserved.get());
        return;
      }
      if (request.fetches()) {
        advertised = Optional.empty(); // answered from the cache once it has upstream's refs
        if (inFlight.isEmpty()) {
          log.info("run {}: fetch from {} served from the cache: no fetch from upstream under"
              + " way", run.runId(), repo);
        } else if (streamed(run, repo, inFlight.get(), request, rsp)) {
          return;
        }
        try {
          services.cache().awaitFetch(repo);
        } catch (UpstreamException e) {
          log.warn("run {}: fetch of {} into the cache failed: {}", run.runId(), repo,
              e.getMessage());
          GitErrorLine.send(req, rsp, "upstream " + repo
              + " cannot be read right now, so the gateway cannot serve it; try again");
          return;
        }
      }
    }
    new Fetch(run, repo, advertised).attachTo(served);
    log.debug("run {}: fetch from {} ({})", run.runId(), repo,
        advertisement ? "advertisement" : "negotiation and pack");
    if (advertised.isPresent()) {
      // Upstream's refs as listed, peeled: no object of the cache is read, so no compaction is
      // held off, and the repository's lock, which the cache's fetch holds until it ends, is
      // not waited for (a v2 ref listing would otherwise wait for the whole pack).
      handOn(served, request, repo, rsp, chain);
      return;
    }
    try (AutoCloseable reading = services.cache().reading(repo)) {
      handOn(served, request, repo, rsp, chain);
    } catch (IOException | ServletException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e); // closing a reading throws nothing
    }
  }

  /**
   * Hands {@code served} on to JGit's upload-pack with every object id it names that JGit looks
   * up judged by the cache's branches and tags ({@link FetchRequestBody#handedOn}): JGit would
   * acknowledge a have of any object the cache holds (what a refused push left, a blob), read a
   * shallow or deepen-not of one, telling a run what the cache holds. A request that reads no
   * pack (v2's ls-refs) names no id JGit reads. No {@code request}: an advertisement, with no
   * body.
   */
  private void handOn(HttpServletRequest served, FetchRequestBody request, RepoSlug repo,
      HttpServletResponse rsp, FilterChain chain) throws IOException, ServletException {
    if (request == null) {
      chain.doFilter(served, rsp);
      return;
    }
    List<ObjectId> named = request.named();
    Set<ObjectId> reached = Set.of();
    if (request.fetches() && !named.isEmpty()) {
      try (Repository cache = services.cache().open(repo)) {
        reached = Set.copyOf(CommonHaves.common(cache, named));
      }
    }
    byte[] body;
    try {
      body = request.handedOn(reached);
    } catch (FetchRequestBody.NotReached e) {
      FetchErrors.refuseNotReached(served, rsp, e.getMessage());
      return;
    }
    chain.doFilter(HandedOn.withDecodedBody(served, new ByteArrayInputStream(body)), rsp);
  }

  /**
   * Answers the fetch request {@code body} from {@code inFlight}: with its pack as it arrives, or,
   * while the client's haves do not yet decide the pack, as a negotiation round; whether it did.
   * Otherwise the request waits for the cache, and the log says why.
   */
  private boolean streamed(RunContext run, RepoSlug repo, FetchStream inFlight,
      FetchRequestBody body, HttpServletResponse rsp) throws IOException {
    Optional<StreamedFetch.Request> request = StreamedFetch.parse(body);
    if (request.isEmpty()) {
      // In any round: a later one may add what the first did not (a filter, a deepen), and the
      // cache's fetch is hurried all the same (awaitFetch). Malformed pkt-lines never come here.
      log.info("run {}: fetch from {} stored then served: the request is not one a stream"
          + " answers (shallow, deepen, filter, want-ref, sideband-all, no side-band or ofs-delta)",
          run.runId(), repo);
      return false;
    }
    FetchStream.Answer answer;
    // Not marked as reading (which takes the repository's lock, held by the cache's fetch while
    // it waits for this very request): the walk reads commits the cache's refs reach, which a
    // compaction keeps; should it lose a pack under the walk, the request waits for the cache.
    try (Repository cache = services.cache().open(repo)) {
      answer = inFlight.offer(request.get(), CommonHaves.in(cache));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (IOException | RuntimeException e) {
      log.info("run {}: fetch from {} stored then served: its haves could not be read in the"
          + " cache: {}", run.runId(), repo, e.getMessage());
      return false;
    }
    if (answer instanceof FetchStream.Answer.Stored stored) {
      log.info("run {}: fetch from {} stored then served: {}", run.runId(), repo, stored.why());
      return false;
    }
    if (answer instanceof FetchStream.Answer.Round round) {
      log.debug("run {}: fetch from {}: a negotiation round, {} have(s) in common", run.runId(),
          repo, round.common().size());
      StreamedFetch.answerRound(rsp, request.get(), round.common());
      return true;
    }
    FetchStream.Answer.Pack pack = (FetchStream.Answer.Pack) answer;
    log.info("run {}: fetch from {} streamed (upstream asked with {})", run.runId(), repo,
        pack.clientsHaves() ? pack.claim().common().size() + " have(s) of the client"
            : "the cache's tips");
    try {
      StreamedFetch.answer(rsp, request.get(), pack.claim());
    } catch (StreamedFetch.StreamBroken e) {
      log.info("run {}: the pack streamed from {} broke off: {}", run.runId(), repo,
          e.getMessage());
    }
    return true;
  }

  /**
   * Upstream's symrefs of {@code repo} for a push's judgement: as the advertisement's sync listed
   * them, or read now when no sync has (unknown, so every command refused, if that fails).
   */
  private UpstreamSymrefs symrefsOf(RunContext run, RepoSlug repo) {
    UpstreamSymrefs listed = services.cache().symrefs(repo);
    if (listed.known()) {
      return listed;
    }
    try {
      UpstreamAccess upstream = services.upstream();
      return services.cache().symrefsListedNow(repo, upstream.remoteUrl(repo),
          upstream.readToken(run, repo));
    } catch (UpstreamException e) {
      log.warn("run {}: could not read {}'s ref list: {}", run.runId(), repo, e.getMessage());
      return listed;
    }
  }

  private static String unreadableReason(RepoSlug repo) {
    return "upstream " + repo + " cannot be read right now; nothing was pushed, try again";
  }

  /**
   * A push: its command list is read and judged before the pack; a push denied whatever its pack
   * holds is answered at once, anything else goes to JGit's receive-pack as one {@link Push},
   * with its write token minted while the pack arrives when something is allowed outright, and
   * its pack streamed upstream as it arrives when everything is.
   */
  private void receive(RunContext run, RepoSlug repo, HttpServletRequest req,
      HttpServletResponse rsp, FilterChain chain) throws IOException, ServletException {
    PackHeaderGuard.Guarded guarded;
    try {
      guarded = PackHeaderGuard.check(clientReads.watch(req),
          PackHeaderGuard.maxObjects(config.maxPackBytes()));
    } catch (PackHeaderGuard.Refused e) {
      log.info("run {}: push to {} refused: {}", run.runId(), repo, e.getMessage());
      text(rsp, HttpServletResponse.SC_BAD_REQUEST, "malformed push request: " + e.getMessage());
      return;
    } catch (org.eclipse.jgit.transport.ServiceMayNotContinueException e) {
      log.info("run {}: push to {} refused: {}", run.runId(), repo, e.getMessage());
      text(rsp, e.getStatusCode(), e.getMessage());
      return;
    } catch (IOException e) {
      if (ReceiveErrors.answerIfTimedOut(rsp, e)) {
        return;
      }
      throw e;
    }
    // Judged as what upstream changes: a command naming one of upstream's symbolic refs moves
    // the ref it points to (UpstreamSymrefs, as the advertisement's sync listed them).
    Verdict.PushJudge judge = symrefsOf(run, repo).judging(run::judgePush);
    Optional<JudgedCommands> judged = JudgedCommands.read(judge, guarded.commands());
    // Minted while the pack arrives (and while the cache ends a fetch), or taken from the
    // advertisement's pre-mint, but only for a command list that the rules allow at least in part
    // as it stands: an empty or malformed list, or one that only asks, mints nothing here (the
    // push hook mints once something is allowed), and a malformed list or one that only asks
    // wastes a pre-minted token at once. An empty list ("0000") leaves it to its push or its
    // time: it is what git sends to probe the connection before a push whose request outgrows
    // http.postBuffer (1 MiB), i.e. before every large push (a loop of them is bounded all the
    // same: the pending token counts against the run's bound and is wasted after its time).
    boolean allowedOutright = judged.isPresent() && judged.get().anyAllowedOutright();
    if (!allowedOutright && !guarded.commands().isEmpty()) {
      preMints.discard(run, repo);
    }
    Optional<EarlyRefusal.Request> early = judged.flatMap(
        j -> EarlyRefusal.duplicatedRefs(j.list()).or(() -> EarlyRefusal.judge(j)));
    if (early.isPresent()) {
      refuseEarly(run, repo, guarded.request(), rsp, early.get());
      return;
    }
    Optional<GatewayAdmission.Ticket> ticket = admission.tryAdmit(run.runId());
    if (ticket.isEmpty()) {
      if (judged.isPresent()) {
        services.metrics().onShed(Door.PUSH.id(), Limit.GATEWAY.id());
        refuseEarly(run, repo, guarded.request(), rsp,
            EarlyRefusal.shed(judged.get().list(), admission.shedReason()));
      } else {
        shed(run, repo, req, rsp, Door.PUSH, Limit.GATEWAY, admission.shedReason());
      }
      return;
    }
    try (GatewayAdmission.Ticket admitted = ticket.get();
        Push push = new Push(run, repo, judged, judge, services.upstream())) {
      if (allowedOutright) {
        push.mintAhead(preMints.take(run, repo), services.threads().minting());
        push.whenLanded(() -> preMints.landed(run, repo));
      }
      Optional<StreamedForward.Plan> plan = allowedOutright
          ? StreamedForward.plan(judged.get()) : Optional.empty();
      Optional<Future<Void>> fetch = services.cache().fetchUnderWay(repo);
      if (plan.isPresent() && fetch.isPresent() && guarded.packHeader().isPresent()) {
        guarded = streamDuringTheFetch(push, repo, plan.get(), guarded, fetch.get());
      }
      if (!cacheHoldsTheAdvertisement(run, repo, guarded, rsp, judged)) {
        return;
      }
      HttpServletRequest received = guarded.request();
      if (plan.isPresent() && push.streamed().isEmpty()) {
        // the cache's pack parser hands it the pack as it reads it (Push.packCopy)
        push.stream(startStream(push, repo, plan.get()));
      }
      push.attachTo(received);
      chain.doFilter(HandedOn.answeredAsIs(received), rsp);
      auditUnreceived(run, repo, push);
    }
  }

  private StreamedForward startStream(Push push, RepoSlug repo, StreamedForward.Plan plan) {
    return StreamedForward.start(services.forwarder(), services.upstream().remoteUrl(repo),
        () -> push.writeToken(false), plan, config.upstreamTimeout(), services.threads());
  }

  /**
   * Starts the push's streamed copy while the cache still fetches what the push's advertisement
   * showed, and sends it the start of the pack read meanwhile ({@link EarlyPack}: never what
   * could complete the pack upstream); the pack's parser, once the fetch is done, hands the copy
   * the rest. Returns the request with what was read replayed, for JGit to read it all.
   */
  private PackHeaderGuard.Guarded streamDuringTheFetch(Push push, RepoSlug repo,
      StreamedForward.Plan plan, PackHeaderGuard.Guarded guarded, Future<Void> fetch)
      throws IOException {
    StreamedForward streamed = startStream(push, repo, plan);
    EarlyPack early = new EarlyPack(guarded.packHeader().orElseThrow());
    push.stream(streamed, early.resume(streamed)); // the push breaks it off if it goes no further
    early.send(guarded.rest(), () -> !fetch.isDone(), streamed::objectsNow);
    return guarded.withRest(early.replay(guarded.rest()));
  }

  /**
   * A push whose pack JGit did not receive whole (the client went or stopped sending part way, or
   * the pack was malformed) never reaches the push hook: its commands are audited here with the
   * reason, so that a write token minted ahead and revoked unused, or a streamed copy broken off,
   * leaves its trace. Nothing was pushed: the streamed copy is broken off when the push closes.
   */
  private void auditUnreceived(RunContext run, RepoSlug repo, Push push) {
    if (push.audited() || push.judged().isEmpty()) {
      return;
    }
    push.whyUnreceived().ifPresent(why -> auditRefused(run, repo,
        EarlyRefusal.unreceived(push.judged().get().list(), why), "(its pack was not received)"));
  }

  /**
   * Waits for the fetch of what the push's advertisement showed, if the cache was still at it,
   * before JGit checks the commands' old ids against the cache's refs or completes a thin pack
   * against its objects: the one wait of a push. When that fetch failed, answers and returns
   * false: a command list read here is refused command by command in git's words (the push then
   * revokes its token), one that could not be read gets a 502 with the same reason.
   */
  private boolean cacheHoldsTheAdvertisement(RunContext run, RepoSlug repo,
      PackHeaderGuard.Guarded guarded, HttpServletResponse rsp, Optional<JudgedCommands> judged)
      throws IOException {
    try {
      services.cache().awaitFetch(repo);
      return true;
    } catch (UpstreamException e) {
      log.warn("run {}: sync of {} failed: {}", run.runId(), repo, e.getMessage());
      if (judged.isPresent()) {
        refuseEarly(run, repo, guarded.request(), rsp,
            EarlyRefusal.upstreamUnreadable(judged.get().list(), unreadableReason(repo)));
      } else {
        discardPack(guarded.request(), rsp);
        text(rsp, HttpServletResponse.SC_BAD_GATEWAY, Refusals.render(unreadableReason(repo)));
      }
      return false;
    }
  }

  @Override
  public void destroy() {
    clientReads.close();
  }

  /**
   * {@code /<gitHost>/<owner>/<name>[.git]/<smart-HTTP suffix>} → the repository, if well formed.
   */
  Optional<RepoSlug> repositoryOf(String pathInfo) {
    // the host as DNS compares it: without regard to case
    String host = config.gitHost();
    if (pathInfo == null || pathInfo.length() < host.length() + 2 || pathInfo.charAt(0) != '/'
        || !pathInfo.regionMatches(true, 1, host, 0, host.length())
        || pathInfo.charAt(host.length() + 1) != '/') {
      return Optional.empty();
    }
    String rest = pathInfo.substring(host.length() + 2);
    String repo = null;
    for (String suffix : SMART_HTTP_SUFFIXES) {
      if (rest.endsWith(suffix)) {
        repo = rest.substring(0, rest.length() - suffix.length());
      }
    }
    if (repo == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(RepoSlug.parse(repo));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /** Audits, discards the pack unread, and answers every command with its refusal. */
  private void refuseEarly(RunContext run, RepoSlug repo, HttpServletRequest req,
      HttpServletResponse rsp, EarlyRefusal.Request early) throws IOException {
    List<String> reasons = auditRefused(run, repo, early, "(before its pack)");
    discardPack(req, rsp);
    EarlyRefusal.respond(rsp, early, reasons);
  }

  /**
   * Audits and logs every command of {@code early} as refused; returns what git is told of each
   * (the audit log's unavailability, when it is). {@code when} ends each log line.
   */
  private List<String> auditRefused(RunContext run, RepoSlug repo, EarlyRefusal.Request early,
      String when) {
    List<String> reasons = new ArrayList<>();
    List<AuditEntry> records = new ArrayList<>();
    for (EarlyRefusal.Refused r : early.refused()) {
      records.add(refusal(run, repo).ref(r.ref()).oldId(r.oldId().name())
          .newId(r.newId().name()).kind(r.kind()).rule(r.judgement().rule())
          .code(early.code().name()).reason(r.judgement().reason()).build());
      // git's own refusals are shown in git's words, as PushHook shows them.
      reasons.add(early.code() == RefusalCode.INVALID_COMMAND
          ? r.judgement().reason() : Refusals.render(r.judgement().reason()));
    }
    try {
      services.audit().record(records);
    } catch (AuditLog.AuditException e) {
      log.error("run {}: audit log unavailable, push to {} refused", run.runId(), repo, e);
      reasons.replaceAll(x -> Refusals.render(
          "the audit log is unavailable, so nothing can be pushed; try again later"));
    }
    for (EarlyRefusal.Refused r : early.refused()) {
      services.metrics().onDecision(r.kind(), AuditEntry.Decision.DENIED, early.code());
      log.atInfo().addKeyValue("run", run.runId()).addKeyValue("repository", repo)
          .addKeyValue("ref", r.ref()).addKeyValue("decision", "deny")
          .addKeyValue("code", early.code())
          .log("push run={} repo={} ref={} kind={} decision=deny code={} reason={} {}",
          run.runId(), repo, r.ref(), r.kind(), early.code(), r.judgement().reason(), when);
    }
    return reasons;
  }

  /**
   * Reads the pack of a push answered without it, so that git sees the answer rather than a broken
   * pipe; bounded like a pack JGit would read, beyond it the connection is closed after the answer.
   */
  private void discardPack(HttpServletRequest req, HttpServletResponse rsp) throws IOException {
    if (!EarlyRefusal.discard(req.getInputStream(), config.maxPackBytes() + (1 << 20))) {
      rsp.setHeader("Connection", "close");
    }
  }

  private void auditRefusal(RunContext run, RepoSlug repo, String reason) {
    try {
      services.audit().record(List.of(refusal(run, repo).rule("repository attachment")
          .code(RefusalCode.REPO_NOT_ATTACHED.name()).reason(reason).build()));
    } catch (AuditLog.AuditException e) {
      log.error("could not audit a refused repository for run {}", run.runId(), e);
    }
    log.atInfo().addKeyValue("run", run.runId()).addKeyValue("repository", repo)
        .addKeyValue("decision", "deny").addKeyValue("code", RefusalCode.REPO_NOT_ATTACHED)
        .log("push run={} repo={} decision=deny code=REPO_NOT_ATTACHED", run.runId(), repo);
  }

  /** The columns every push the filter refuses before JGit shares: now, the run, denied. */
  private AuditEntry.Builder refusal(RunContext run, RepoSlug repo) {
    return AuditEntry.builder(AuditEntry.Type.PUSH).at(config.clock().instant())
        .runId(run.runId()).workspaceId(run.workspaceId()).repository(repo.toString())
        .decision(AuditEntry.Decision.DENIED).outcome(AuditEntry.Outcome.NOT_FORWARDED)
        .durationMillis(0L);
  }

  private static void text(HttpServletResponse rsp, int status, String message)
      throws IOException {
    PlainAnswer.send(rsp, status, message);
  }
}
