package dev.pushgate.gateway;

import dev.pushgate.policy.Decision;
import dev.pushgate.policy.Judgement;
import dev.pushgate.policy.UpdateKind;
import dev.pushgate.types.AuditEntry;
import dev.pushgate.types.RepoSlug;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.transport.PreReceiveHook;
import org.eclipse.jgit.transport.ReceiveCommand;
import org.eclipse.jgit.transport.ReceivePack;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The push path's decision point, once JGit has received the pack. Each command's {@link
 * Verdict}, judged before the pack, is finished with what only the pack tells (fast-forward or
 * force, the workflow files it changes); an approver is asked where the rule says ask first; the
 * decisions are audited, and the allowed commands are forwarded upstream with the push's write
 * token (the streamed copy finished, or the push stored, then forwarded). Whatever is still
 * undecided when anything goes wrong is refused.
 */
final class PushHook implements PreReceiveHook {
  private static final Logger log = LoggerFactory.getLogger(PushHook.class);
  static final String NOTHING_TO_NOTHING =
      "an update from no object to no object is neither a create nor a delete; nothing was pushed";

  /** One command and what the gateway decided about it. */
  private static final class Item {
    final ReceiveCommand cmd;
    final Verdict verdict;
    final UpdateKind kind;
    Judgement judgement;
    /** The workflow files this update changes; allowed ones need a token that may change them. */
    SortedSet<String> workflows = Collections.emptySortedSet();
    /** The audit's reason when the content rules found something: every finding and commit. */
    String contentAudited;
    RefusalCode code;
    String reason;
    /** Who approved the update when the rule said ask first; null otherwise. */
    String approvedBy;
    AuditLog.Handle audited;

    Item(ReceiveCommand cmd, Verdict verdict) {
      this.cmd = cmd;
      this.verdict = verdict;
      this.kind = Verdict.kindOf(cmd);
    }

    boolean allowed() {
      return code == null;
    }

    void refuse(RefusalCode code, String reason) {
      this.code = code;
      this.reason = reason;
    }
  }

  private final Push push;
  private final RunContext run;
  private final RepoSlug repo;
  private final GatewayServices services;
  private final Clock clock;

  PushHook(Push push, GatewayServices services) {
    this.push = push;
    this.run = push.run();
    this.repo = push.repo();
    this.services = services;
    this.clock = services.config().clock();
  }

  /**
   * Judges every command of the push. JGit hands a pre-receive hook only the commands it has not
   * refused itself ({@code notRefusedByJGit}); the ones it refused before the hook (a create of a
   * ref that exists, a stale old id, a missing object) are taken from {@link
   * ReceivePack#getAllCommands} too, so that they are audited, with JGit's words, like any other.
   */
  @Override
  public void onPreReceive(ReceivePack rp, Collection<ReceiveCommand> notRefusedByJGit) {
    Instant start = clock.instant();
    List<ReceiveCommand> commands = rp.getAllCommands();
    List<Item> items = commands.stream().map(c -> new Item(c, push.verdictOf(c))).toList();
    for (Item i : items) {
      if (i.cmd.getResult() != ReceiveCommand.Result.NOT_ATTEMPTED) {
        i.refuse(RefusalCode.INVALID_COMMAND,
            i.cmd.getMessage() != null ? i.cmd.getMessage() : i.cmd.getResult().name());
      }
    }
    try {
      judge(rp, items);
      List<Item> allowed = items.stream().filter(Item::allowed).toList();
      if (rp.isAtomic() && allowed.size() < items.size()) {
        for (Item i : allowed) {
          i.refuse(RefusalCode.ATOMIC_ABORTED, "atomic push refused because another ref was refused");
        }
        allowed = List.of();
      }
      recordDecisions(items);
      for (Item i : items) {
        services.metrics().onDecision(i.kind.id(),
            i.allowed() ? AuditEntry.Decision.ALLOWED : AuditEntry.Decision.DENIED, i.code);
      }
      applyRefusals(items);
      if (!allowed.isEmpty()) {
        forward(rp, allowed, allowed.size() == items.size(), start);
      }
    } catch (JudgementBudget.Abandoned e) {
      // Nobody waits for the answer (the client went, or the appliance stops): one line, and
      // nothing is pushed.
      log.info("run {}: push to {} not judged further, {}", run.runId(), repo, e.getMessage());
      String why = e.getMessage() + "; nothing was pushed, push again";
      recordAbandoned(items, why);
      refuseUndecided(commands, why);
    } catch (AuditLog.AuditException e) {
      log.error("run {}: audit log unavailable, push to {} refused", run.runId(), repo, e);
      refuseUndecided(commands, "the audit log is unavailable, so nothing can be pushed; try again later");
    } catch (Exception | Error e) {
      log.error("run {}: push to {} failed inside the gateway", run.runId(), repo, e);
      refuseUndecided(commands, "internal error in the push gateway; nothing was pushed");
    }
  }

  private void judge(ReceivePack rp, List<Item> items) throws IOException, InterruptedException {
    if (items.stream().noneMatch(Item::allowed)) {
      return; // JGit refused every command: nothing for the rules or the content judge
    }
    Collection<Ref> upstreamRefs = rp.getAdvertisedRefs() == null
        ? List.of() : rp.getAdvertisedRefs().values();
    List<Item> asks = new ArrayList<>();
    // The filter refuses these before the pack; a list it could not read gets here.
    Optional<String> duplicated = EarlyRefusal.firstDuplicate(
        items.stream().map(i -> i.cmd.getRefName()).toList());
    if (duplicated.isPresent()) {
      for (Item i : items) {
        i.refuse(RefusalCode.INVALID_COMMAND, EarlyRefusal.duplicateReason(duplicated.get()));
        if (i.cmd.getResult() == ReceiveCommand.Result.NOT_ATTEMPTED) {
          i.cmd.setResult(ReceiveCommand.Result.REJECTED_OTHER_REASON, i.reason);
        }
      }
      return;
    }
    GatewayThreads threads = services.threads();
    JudgementBudget budget = push.judgementBudget(ContentJudge.BUDGET, threads::closed);
    // One run's judgements take at most its share of the cores; its other pushes wait here.
    Optional<RunSlots.Slot> slot = threads.judgements().take(run.runId(),
        threads.judgementWait(), budget::check);
    if (slot.isEmpty()) {
      String why = "this run already has " + threads.judgements().perRun() + " push"
          + (threads.judgements().perRun() == 1 ? "" : "es") + " being judged (one run may use"
          + " its share of the appliance's cores) and this one waited "
          + threads.judgementWait().toSeconds()
          + " s; nothing was pushed, push again once those finish";
      for (Item i : items) {
        if (i.allowed()) {
          i.refuse(RefusalCode.JUDGE_BUSY, why);
        }
      }
      return;
    }
    try (RunSlots.Slot held = slot.get();
        ContentJudge content = new ContentJudge(rp.getRepository(), run.content(),
            SecretScanner.standard(), budget)) {
      judgeEach(rp, items, upstreamRefs, content, budget, asks);
    }
    askApprovers(rp, items, upstreamRefs, asks);
  }

  private void judgeEach(ReceivePack rp, List<Item> items, Collection<Ref> upstreamRefs,
      ContentJudge content, JudgementBudget budget, List<Item> asks) throws IOException {
    for (Item i : items) {
      if (!i.allowed()) {
        continue; // JGit refused it before the hook
      }
      if (i.cmd.getOldId().equals(ObjectId.zeroId())
          && i.cmd.getNewId().equals(ObjectId.zeroId())) {
        // Neither a create nor a delete: git never sends it, and an upstream may read it as a
        // delete that skips its check of the old value.
        i.refuse(RefusalCode.INVALID_COMMAND, NOTHING_TO_NOTHING);
        i.cmd.setResult(ReceiveCommand.Result.REJECTED_OTHER_REASON, i.reason);
        continue;
      }
      i.judgement = i.verdict.judgement(i.cmd);
      if (i.judgement.decision() != Decision.DENY) {
        // Judged on what the pushed objects change, never on the ref or the commit messages.
        try {
          i.workflows = UpdateCommands.workflowFiles(rp.getRepository(), i.cmd, upstreamRefs,
              budget::check);
        } catch (JudgementBudget.OutOfTime e) {
          // Workflow files not known, so push-workflows cannot be asked: fail closed.
          i.refuse(RefusalCode.RULE_DENIED, "the workflow files this push changes could not be"
              + " read within " + budget.budget().toSeconds() + " s; nothing was pushed, split the push");
          continue;
        }
        if (!i.workflows.isEmpty()) {
          i.judgement = WorkflowRule.judge(i.judgement, run.pushWorkflows(), i.workflows);
        }
      }
      if (i.judgement.decision() != Decision.DENY) {
        // What the new commits contain: secret files, secrets, sizes, binaries.
        List<ContentFinding> findings = content.findings(i.cmd, upstreamRefs);
        if (!findings.isEmpty()) {
          ContentVerdict v = ContentVerdict.judge(i.judgement, findings);
          i.judgement = v.judgement();
          i.contentAudited = v.audited();
        }
      }
      Decision d = i.judgement.decision();
      if (d == Decision.DENY) {
        i.refuse(RefusalCode.RULE_DENIED, i.judgement.reason());
      } else if (d == Decision.ASK) {
        asks.add(i);
      }
    }
  }

  private void askApprovers(ReceivePack rp, List<Item> items, Collection<Ref> upstreamRefs,
      List<Item> asks) throws IOException, InterruptedException {
    Optional<StreamedForward> streamed = push.streamed();
    if (!asks.isEmpty() && streamed.isPresent()) {
      // A content rule asks about a push whose ref rules allowed it whatever the pack: upstream
      // is not kept waiting on a half-sent pack while a person decides; an approved push is
      // stored, then forwarded.
      log.info("run {}: push to {} stored, then forwarded: a content rule asks first",
          run.runId(), repo);
      streamed.get().abort();
    }
    if (!asks.isEmpty()) {
      // The approvers' page reads the push from the cache; a person may take minutes.
      ((ReceivingCache) rp.getRepository()).storeForApprovers();
      // counted until git's answer is written: the appliance's stop waits for it (HeldPushes)
      push.afterAnswer(services.held().hold());
    }
    // In an atomic push one refusal refuses all: never ask a person about a push that cannot land.
    for (Item i : asks) {
      if (rp.isAtomic() && items.stream().anyMatch(x -> !x.allowed())) {
        i.refuse(RefusalCode.ATOMIC_ABORTED, "atomic push refused because another ref was refused");
        continue;
      }
      ApprovalQuestion q = new ApprovalQuestion(run.runId(), run.workspaceId(), repo.toString(),
          i.cmd.getRefName(), i.kind.id(), i.cmd.getOldId().name(), i.cmd.getNewId().name(),
          i.judgement.rule(), i.judgement.reason(),
          UpdateCommands.summaries(rp.getRepository(), i.cmd, upstreamRefs));
      Approvals.ApprovalAnswer answer = services.approvals().ask(q, line -> progress(rp, line));
      if (answer.allowed()) {
        i.approvedBy = answer.answeredBy() == null ? "an approver" : answer.answeredBy();
      } else {
        i.refuse(answer.code() == null ? RefusalCode.APPROVAL_DENIED : answer.code(),
            answer.reason());
      }
    }
  }

  private void forward(ReceivePack rp, List<Item> allowed, boolean everyCommand, Instant start)
      throws IOException, InterruptedException {
    List<ReceiveCommand> cmds = allowed.stream().map(i -> i.cmd).toList();
    Collection<Ref> upstreamRefs = rp.getAdvertisedRefs() == null
        ? List.of() : rp.getAdvertisedRefs().values();
    // Every allowed update was judged with its workflow files: only a change push-workflows
    // allowed (or an approver approved) gets a token with the workflows permission.
    boolean workflows = allowed.stream().anyMatch(i -> !i.workflows.isEmpty());
    Map<ReceiveCommand, Forwarder.Outcome> outcomes;
    Instant forwardStart = clock.instant();
    Optional<StreamedForward> streamed = push.streamed();
    Optional<Map<ReceiveCommand, Forwarder.Outcome>> streamedOutcomes = Optional.empty();
    if (streamed.isPresent() && everyCommand && !workflows) {
      streamedOutcomes = streamed.get().finish(cmds, line -> progress(rp, line));
    }
    boolean streaming = streamedOutcomes.isPresent();
    if (streaming) {
      outcomes = streamedOutcomes.get();
    } else {
      if (streamed.isPresent()) {
        log.info("run {}: push to {} stored, then forwarded: {}", run.runId(), repo,
            workflows ? "it changes workflows" : everyCommand
                ? streamed.get().notReadyBecause(cmds) : "not every command was allowed");
        streamed.get().abort();
      }
      outcomes = storeAndForward(rp, cmds, upstreamRefs, workflows);
    }
    push.retireWriteTokens(); // upstream has answered; revoked once git's answer is written
    Instant forwarded = clock.instant();
    services.metrics().onForward(Duration.between(forwardStart, forwarded),
        outcomes.values().stream().allMatch(Forwarder.Outcome::ok), streaming);
    long took = Duration.between(start, forwarded).toMillis();
    List<ReceiveCommand> landed = allowed.stream().map(i -> i.cmd)
        .filter(c -> outcomes.get(c).ok()).toList();
    if (!landed.isEmpty()) {
      // Pending now, so that whatever takes the repository's lock next writes them first; the
      // background write (the packs forced, the refs written) waits for git's answer.
      services.cache().landed(repo, landed, ((ReceivingCache) rp.getRepository()).held());
      push.afterAnswer(() -> services.cache().writeLanded(repo));
      push.landed();
    }
    for (Item i : allowed) {
      Forwarder.Outcome o = outcomes.get(i.cmd);
      if (o.ok()) {
        i.cmd.setResult(ReceiveCommand.Result.OK);
      } else {
        i.cmd.setResult(o.result(), o.message());
      }
      settleAfterAnswer(i, o.audited(), took);
      // Logged once git has its answer too: a line to stderr, through the redaction's patterns.
      push.afterAnswer(() -> log.atInfo().addKeyValue("run", run.runId())
          .addKeyValue("repository", repo).addKeyValue("ref", i.cmd.getRefName())
          .addKeyValue("decision", "allow")
          .log("push run={} repo={} ref={} kind={} decision=allow upstream={}",
          run.runId(), repo, i.cmd.getRefName(), i.kind.id(), o.describe()));
    }
  }

  private Map<ReceiveCommand, Forwarder.Outcome> storeAndForward(ReceivePack rp,
      List<ReceiveCommand> cmds, Collection<Ref> upstreamRefs, boolean workflows)
      throws IOException {
    try {
      WriteTokenLease lease = push.writeToken(workflows);
      return services.forwarder().forward(rp.getRepository(),
          services.upstream().remoteUrl(repo), lease.token(), cmds, upstreamRefs,
          rp.isAtomic(), rp.getPushOptions(), line -> progress(rp, line));
    } catch (UpstreamException e) {
      log.warn("run {}: no write token for {}: {}", run.runId(), repo, e.getMessage());
      Forwarder.Outcome failed = new Forwarder.Outcome(ReceiveCommand.Result.REJECTED_OTHER_REASON,
          e.forThePersonPushing() ? e.getMessage()
              : "the gateway could not get a write token for " + repo + "; nothing was pushed");
      Map<ReceiveCommand, Forwarder.Outcome> outcomes = new LinkedHashMap<>();
      for (ReceiveCommand c : cmds) {
        outcomes.put(c, failed);
      }
      return outcomes;
    }
  }

  private void recordDecisions(List<Item> items) throws AuditLog.AuditException {
    Instant now = clock.instant();
    List<AuditEntry> records = new ArrayList<>();
    for (Item i : items) {
      records.add(AuditEntry.builder(AuditEntry.Type.PUSH).at(now).runId(run.runId())
          .workspaceId(run.workspaceId()).repository(repo.toString()).ref(i.cmd.getRefName())
          .oldId(i.cmd.getOldId().name()).newId(i.cmd.getNewId().name()).kind(i.kind.id())
          .decision(i.allowed() ? AuditEntry.Decision.ALLOWED : AuditEntry.Decision.DENIED)
          .rule(i.judgement == null ? "git" : i.judgement.rule())
          .code(i.code == null ? null : i.code.name())
          .reason(i.allowed() ? allowedBecause(i) : refusedBecause(i))
          .outcome(i.allowed() ? AuditEntry.Outcome.PENDING : AuditEntry.Outcome.NOT_FORWARDED)
          .durationMillis(0L).build()); // the forward's time is its outcome record's
    }
    List<? extends AuditLog.Handle> handles = services.audit().record(records);
    push.markAudited();
    for (int n = 0; n < items.size(); n++) {
      items.get(n).audited = handles.get(n);
    }
  }

  /**
   * Audits the commands of an abandoned judgement as refused, {@link RefusalCode#ABANDONED}, so
   * the audit says why a push the agent started never landed; unless they were audited already.
   */
  private void recordAbandoned(List<Item> items, String why) {
    if (items.stream().anyMatch(i -> i.audited != null)) {
      return;
    }
    for (Item i : items) {
      if (i.allowed()) {
        i.refuse(RefusalCode.ABANDONED, why);
      }
    }
    try {
      recordDecisions(items);
    } catch (AuditLog.AuditException | RuntimeException e) {
      log.error("run {}: the abandoned push to {} could not be audited", run.runId(), repo, e);
    }
  }

  /** What git is told, or for a content refusal every finding with its commit. */
  private static String refusedBecause(Item i) {
    return i.contentAudited != null && i.code == RefusalCode.RULE_DENIED
        ? i.contentAudited : i.reason;
  }

  /** The rule's reason, and for an update a person approved, who approved it. */
  private static String allowedBecause(Item i) {
    String rule = i.contentAudited != null ? i.contentAudited : i.judgement.reason();
    if (i.approvedBy == null) {
      return rule;
    }
    String approved = "approved by " + i.approvedBy;
    return rule == null || rule.isBlank() ? approved : rule + " (" + approved + ")";
  }

  private void applyRefusals(List<Item> items) {
    for (Item i : items) {
      if (i.allowed()) {
        continue;
      }
      log.atInfo().addKeyValue("run", run.runId()).addKeyValue("repository", repo)
          .addKeyValue("ref", i.cmd.getRefName()).addKeyValue("decision", "deny")
          .addKeyValue("code", i.code)
          .log("push run={} repo={} ref={} kind={} decision=deny code={} reason={}",
          run.runId(), repo, i.cmd.getRefName(), i.kind.id(), i.code, i.reason);
      if (i.code != RefusalCode.INVALID_COMMAND) {
        i.cmd.setResult(ReceiveCommand.Result.REJECTED_OTHER_REASON, Refusals.render(i.reason));
      }
    }
  }

  /**
   * Owes the audit {@code i}'s outcome now and writes it once git has its answer (the push's
   * close), off the path between upstream's report and git's: the audit's readers wait for an
   * outcome owed, so none of them finds the update still pending after git returned. A crash
   * before it is written leaves the decision pending, as a crash between upstream's report and
   * the outcome always did.
   */
  private void settleAfterAnswer(Item i, AuditEntry.Outcome outcome, long took) {
    AuditLog.Owed owed = services.audit().owe(i.audited);
    push.afterAnswer(() -> {
      try {
        owed.settle(outcome, took);
      } catch (AuditLog.AuditException | RuntimeException e) {
        log.error("run {}: could not record the upstream outcome of {}", run.runId(),
            i.cmd.getRefName(), e);
      }
    });
  }

  private static void refuseUndecided(Collection<ReceiveCommand> commands, String why) {
    for (ReceiveCommand c : commands) {
      if (c.getResult() == ReceiveCommand.Result.NOT_ATTEMPTED) {
        c.setResult(ReceiveCommand.Result.REJECTED_OTHER_REASON, Refusals.render(why));
      }
    }
  }

  private static void progress(ReceivePack rp, String line) {
    rp.sendMessage(line);
    try {
      rp.getMessageOutputStream().flush();
    } catch (IOException e) {
      log.debug("could not flush a message to the client: {}", e.getMessage());
    }
  }
}
