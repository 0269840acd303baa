package dev.pushgate.gateway;

import static dev.pushgate.gateway.TestRepos.commit;
import static dev.pushgate.gateway.TestRepos.idOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.pushgate.policy.Boundary;
import dev.pushgate.policy.ContentRules;
import dev.pushgate.policy.Decision;
import dev.pushgate.policy.WorkspaceRules;
import dev.pushgate.policy.PushRule;
import dev.pushgate.policy.Mode;
import dev.pushgate.policy.PushRules;
import dev.pushgate.policy.RefPattern;
import dev.pushgate.policy.UpdateKind;
import dev.pushgate.types.AuditEntry;
import dev.pushgate.types.RepoSlug;
import jakarta.servlet.http.HttpServletRequest;
import java.lang.reflect.Proxy;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.NullProgressMonitor;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.transport.PushResult;
import org.eclipse.jgit.transport.RefSpec;
import org.eclipse.jgit.transport.RemoteRefUpdate;
import org.eclipse.jgit.transport.TestProtocol;
import org.eclipse.jgit.transport.Transport;
import org.eclipse.jgit.transport.URIish;
import org.eclipse.jgit.transport.resolver.ServiceNotAuthorizedException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.api.io.TempDir;
import dev.pushgate.testkit.FakeSecrets;

/**
 * The push path in-process: a client repository pushes over JGit's {@link TestProtocol} into the
 * gateway's cache, whose receive-pack {@link GatewayReceivePackFactory} sets up with the {@link
 * PushHook}; allowed updates are forwarded to a real upstream bare repository served over smart
 * HTTP.
 */
class PushHookTest {
  private static final RepoSlug REPO = new RepoSlug("acme", "widget");
  private static final String MAIN = "refs/heads/main";
  private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
  private static final String ATOMIC_ABORTED =
      "Control Center policy: atomic push refused because another ref was refused";

  @TempDir Path dir;
  private Repository upstream;
  private Repository cache;
  private UpstreamCache caches;
  private final List<Boolean> fetches = new java.util.concurrent.CopyOnWriteArrayList<>();
  private Repository client;
  private RevCommit base;
  private RecordingUpstream access;
  private final RecordingAudit audit = new RecordingAudit();
  private final List<ApprovalQuestion> questions = new ArrayList<>();
  private Approvals approvals = Approvals.NONE;
  private final HeldPushes held = new HeldPushes();
  private Mode mode = Mode.CHAT;
  private Set<Boundary> boundaries = Set.of();
  private Decision pushWorkflows = Decision.DENY;
  private ContentRules content = ContentRules.DEFAULT;
  private TestProtocol<HttpServletRequest> protocol;
  private HttpUpstream http;
  private GatewayThreads threads = new GatewayThreads();

  @BeforeEach
  void upstreamCacheAndClient() throws Exception {
    http = new HttpUpstream(dir);
    upstream = TestRepos.bare(dir.resolve("upstream.git"));
    base = TestRepos.baseOnMainAndOld(upstream);
    access = new RecordingUpstream(http.url(dir.resolve("upstream.git")));

    caches = new UpstreamCache(dir.resolve("cache"), 10, new PushMetrics() {
      @Override
      public void onSync(Duration took, boolean ok, boolean fetched) {
        fetches.add(fetched);
      }
    });
    caches.sync(REPO, access.url, RecordingUpstream.READ_TOKEN);
    cache = caches.open(REPO);

    client = TestRepos.bare(dir.resolve("client.git"));
    try (Git git = Git.wrap(client)) {
      git.fetch().setRemote(access.url)
          .setRefSpecs(new RefSpec("+refs/heads/*:refs/heads/*")).call();
    }
  }

  @AfterEach
  void close() throws Exception {
    if (protocol != null) {
      Transport.unregister(protocol);
    }
    // The cache writes a landed push's refs after its answer, once its pack is forced: a sync
    // writes what is pending first, so nothing writes into the directory while it is deleted.
    try {
      caches.sync(REPO, access.url, RecordingUpstream.READ_TOKEN);
    } catch (UpstreamException e) {
      // a test that made upstream unreadable; its pushes landed nothing
    }
    caches.close();
    upstream.close();
    cache.close();
    client.close();
    http.close();
    threads.close();
  }

  // ---- allowed

  @Test
  void forwardsAnAllowedFastForwardAndReportsOk() throws Exception {
    RevCommit next = clientCommit("next", base);
    PushResult r = pushToMain(PushRules.ALLOW_ALL, next);

    assertThat(status(r, MAIN)).isEqualTo(RemoteRefUpdate.Status.OK);
    assertThat(idOf(upstream, MAIN)).isEqualTo(next);
    assertThat(idOf(syncedCache(), MAIN)).isEqualTo(next);
    assertThat(audit.records).containsExactly(AuditEntry.builder(AuditEntry.Type.PUSH).at(NOW)
        .runId("run-1").workspaceId("ws-1").repository("acme/widget").ref(MAIN)
        .oldId(base.name()).newId(next.name()).kind("update").decision("allowed")
        .rule("push -> allow").reason("no push rule matches; push is allowed").outcome("pending")
        .durationMillis(0L).build());
    assertThat(audit.outcomeOf(0)).isEqualTo("ok");
    assertThat(access.leases).singleElement().satisfies(l -> {
      assertThat(l.closes).hasValue(1);
      assertThat(l.workflows).isFalse();
      assertThat(l.repo).isEqualTo(REPO);
    });
  }

  @Test
  void theWriteTokenIsRevokedOnceTheClientHasItsAnswerNotBefore() throws Exception {
    // A revocation is a round trip to the git host and a ledger transaction: started before
    // git's answer, it ran beside the push's last steps on the machine's cores.
    java.util.concurrent.atomic.AtomicBoolean answered =
        new java.util.concurrent.atomic.AtomicBoolean();
    List<Boolean> answeredAtRevocation = new java.util.concurrent.CopyOnWriteArrayList<>();
    UpstreamAccess revokesLate = new UpstreamAccess() {
      @Override
      public String remoteUrl(RepoSlug repo) {
        return access.remoteUrl(repo);
      }

      @Override
      public dev.pushgate.types.Secret readToken(RunContext run, RepoSlug repo) {
        return access.readToken(run, repo);
      }

      @Override
      public WriteTokenLease mintWriteToken(RunContext run, RepoSlug repo, boolean workflows)
          throws UpstreamException {
        WriteTokenLease minted = access.mintWriteToken(run, repo, workflows);
        return new WriteTokenLease() {
          @Override
          public dev.pushgate.types.Secret token() {
            return minted.token();
          }

          @Override
          public void close() {
            answeredAtRevocation.add(answered.get());
            minted.close();
          }
        };
      }
    };
    RevCommit next = clientCommit("next", base);
    Push pushed = new Push(run(PushRules.ALLOW_ALL), REPO, java.util.Optional.empty(), revokesLate);
    PushResult r = pushAsTheFilterDoes(next, pushed, revokesLate, audit,
        () -> answered.set(true));

    assertThat(status(r, MAIN)).isEqualTo(RemoteRefUpdate.Status.OK);
    assertThat(idOf(upstream, MAIN)).isEqualTo(next);
    assertThat(answeredAtRevocation).as("revoked once, after the answer").containsExactly(true);
    assertThat(access.leases).singleElement().satisfies(l -> assertThat(l.closes).hasValue(1));
    assertThat(audit.outcomeOf(0)).isEqualTo("ok");
    assertThatThrownBy(() -> pushed.writeToken(false))
        .as("no token handed out once upstream answered").isInstanceOf(UpstreamException.class);
  }

  @Test
  void theOutcomeIsOwedBeforeTheAnswerAndWrittenOnceTheClientHasIt() throws Exception {
    // The outcome record was committed between upstream's report and git's answer, in series
    // with both; now the audit is told it is owed there (its readers wait for it) and it is
    // written once the push has closed.
    java.util.concurrent.atomic.AtomicBoolean answered =
        new java.util.concurrent.atomic.AtomicBoolean();
    List<String> steps = new java.util.concurrent.CopyOnWriteArrayList<>();
    AuditLog watched = new AuditLog() {
      @Override
      public List<? extends Handle> record(List<AuditEntry> records) throws AuditException {
        return audit.record(records);
      }

      @Override
      public void settle(Handle record, AuditEntry.Outcome outcome, long durationMillis)
          throws AuditException {
        steps.add("written, " + (answered.get() ? "answered" : "not answered"));
        audit.settle(record, outcome, durationMillis);
      }

      @Override
      public Owed owe(Handle record) {
        steps.add("owed, " + (answered.get() ? "answered" : "not answered"));
        return (outcome, durationMillis) -> settle(record, outcome, durationMillis);
      }
    };
    RevCommit next = clientCommit("next", base);
    Push pushed = new Push(run(PushRules.ALLOW_ALL), REPO, java.util.Optional.empty(), access);
    PushResult r = pushAsTheFilterDoes(next, pushed, access, watched, () -> {
      answered.set(true);
      assertThat(audit.outcomeOf(0)).as("not yet written when git has its answer")
          .isEqualTo("pending");
    });

    assertThat(status(r, MAIN)).isEqualTo(RemoteRefUpdate.Status.OK);
    assertThat(steps).containsExactly("owed, not answered", "written, answered");
    assertThat(audit.outcomeOf(0)).isEqualTo("ok");
  }

  @Test
  void theReceivedPacksKeepIsDeletedOnceTheClientHasItsAnswerNotBefore() throws Exception {
    // JGit deletes it before the report, and the unlink waited for the pack directory. A pack
    // too large to be held in memory (ReceivedInMemory) is stored, with its .keep, as it arrives.
    RevCommit next = commit(client, "next\n", Map.of("noise.txt", noise()), base);
    Push pushed = new Push(run(PushRules.ALLOW_ALL), REPO, java.util.Optional.empty(), access);
    List<String> keptAtAnswer = new ArrayList<>();
    PushResult r = pushAsTheFilterDoes(next, pushed, access, audit,
        () -> keptAtAnswer.addAll(keeps()));

    assertThat(status(r, MAIN)).isEqualTo(RemoteRefUpdate.Status.OK);
    assertThat(keptAtAnswer).as("the pack is kept while git reads its answer").hasSize(1);
    // and no longer once the push closed: on the cache's ref writer, after the landed refs
    dev.pushgate.testkit.Wait.until(java.time.Duration.ofSeconds(30),
        "the pack's .keep to be deleted after the answer", () -> keeps().isEmpty());
  }

  @Test
  void aSmallPushsPackReachesTheCacheOnlyWithTheRefsItLands() throws Exception {
    RevCommit next = clientCommit("next", base);
    Push pushed = new Push(run(PushRules.ALLOW_ALL), REPO, java.util.Optional.empty(), access);
    List<String> packsBefore = packs();
    List<Boolean> heldAtAnswer = new ArrayList<>();
    PushResult r = pushAsTheFilterDoes(next, pushed, access, audit, () -> {
      heldAtAnswer.add(packs().equals(packsBefore));
      heldAtAnswer.add(keeps().isEmpty());
    });

    assertThat(status(r, MAIN)).isEqualTo(RemoteRefUpdate.Status.OK);
    assertThat(heldAtAnswer).as("judged and forwarded from memory: no file, no .keep")
        .containsExactly(true, true);
    dev.pushgate.testkit.Wait.until(java.time.Duration.ofSeconds(30),
        "the landed push's pack written to the cache", () -> packs().size() > packsBefore.size());
    Repository synced = syncedCache(); // in step with upstream: nothing fetched
    assertThat(synced.exactRef(MAIN).getObjectId()).isEqualTo(next);
    try (org.eclipse.jgit.internal.storage.file.FileRepository reopened =
        new org.eclipse.jgit.internal.storage.file.FileRepository(cache.getDirectory())) {
      assertThat(reopened.getObjectDatabase().has(next)).isTrue();
      reopened.parseCommit(next).getTree();
    }
  }

  @Test
  void aRefusedPushLeavesNothingInTheCache() throws Exception {
    RevCommit next = clientCommit("next", base);
    List<String> packsBefore = packs();
    PushResult r = pushToMain(denyMain(), next);

    assertThat(status(r, MAIN)).isEqualTo(RemoteRefUpdate.Status.REJECTED_OTHER_REASON);
    assertThat(packs()).isEqualTo(packsBefore);
    assertThat(cache.getObjectDatabase().has(next)).isFalse();
  }

  /** Text that does not deflate below {@link ReceivedInMemory#MAX_PACK_BYTES}. */
  private static String noise() {
    java.util.Random random = new java.util.Random(1);
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < 2 * ReceivedInMemory.MAX_PACK_BYTES; i++) {
      text.append((char) ('0' + random.nextInt(64)));
    }
    return text.toString();
  }

  /** The packs in the cache's pack directory. */
  private List<String> packs() {
    String[] names = new java.io.File(cache.getDirectory(), "objects/pack")
        .list((d, n) -> n.endsWith(".pack"));
    return names == null ? List.of() : java.util.Arrays.stream(names).sorted().toList();
  }

  /** The {@code .keep} files in the cache's pack directory. */
  private List<String> keeps() {
    String[] names = new java.io.File(cache.getDirectory(), "objects/pack")
        .list((d, n) -> n.endsWith(".keep"));
    return names == null ? List.of() : List.of(names);
  }

  @Test
  void forwardsACreateADeleteAndAForceInOnePushWithOneWriteToken() throws Exception {
    RevCommit feature = clientCommit("feature", base);
    RevCommit rewritten = commit(client, "rewritten\n", Map.of("README.md", "rewritten\n"));
    TestRepos.setRef(client, "refs/heads/feature", feature);
    TestRepos.setRef(client, "refs/heads/rewritten", rewritten);

    PushResult r = push(PushRules.ALLOW_ALL, false, "refs/heads/feature:refs/heads/feature",
        ":refs/heads/old", "+refs/heads/rewritten:refs/heads/main");

    assertThat(status(r, "refs/heads/feature")).isEqualTo(RemoteRefUpdate.Status.OK);
    assertThat(status(r, "refs/heads/old")).isEqualTo(RemoteRefUpdate.Status.OK);
    assertThat(status(r, MAIN)).isEqualTo(RemoteRefUpdate.Status.OK);
    assertThat(idOf(upstream, "refs/heads/feature")).isEqualTo(feature);
    assertThat(idOf(upstream, "refs/heads/old")).isNull();
    assertThat(idOf(upstream, MAIN)).isEqualTo(rewritten);
    assertThat(idOf(syncedCache(), "refs/heads/old")).isNull();
    assertThat(idOf(cache, "refs/heads/feature")).isEqualTo(feature);
    assertThat(audit.records).extracting(AuditEntry::ref, AuditEntry::kind)
        .containsExactlyInAnyOrder(
        org.assertj.core.groups.Tuple.tuple("refs/heads/feature", "create"),
        org.assertj.core.groups.Tuple.tuple("refs/heads/old", "delete"),
        org.assertj.core.groups.Tuple.tuple(MAIN, "force"));
    assertThat(access.leases).singleElement().satisfies(l -> assertThat(l.closes).hasValue(1));
  }

  @Test
  void forwardsAnAnnotatedTag() throws Exception {
    ObjectId tag = TestRepos.annotatedTag(client, "v1.0", clientCommit("release", base));
    TestRepos.setRef(client, "refs/tags/v1.0", tag);

    PushResult r = push(PushRules.ALLOW_ALL, false, "refs/tags/v1.0:refs/tags/v1.0");

    assertThat(status(r, "refs/tags/v1.0")).isEqualTo(RemoteRefUpdate.Status.OK);
    assertThat(idOf(upstream, "refs/tags/v1.0")).isEqualTo(tag);
  }

  @Test
  void mintsAWorkflowsTokenOnlyWhenPushWorkflowsAllowsTheChange() throws Exception {
    pushWorkflows = Decision.ALLOW;
    RevCommit ci = commit(client, "add ci\n",
        Map.of("README.md", "base\n", ".github/workflows/ci.yml", "on: push\n"), base);
    PushResult r = pushToMain(PushRules.ALLOW_ALL, ci);

    assertThat(status(r, MAIN)).isEqualTo(RemoteRefUpdate.Status.OK);
    assertThat(access.leases).singleElement().satisfies(l -> assertThat(l.workflows).isTrue());
    assertThat(audit.records).singleElement().satisfies(rec -> {
      assertThat(rec.rule()).isEqualTo("push -> allow and push-workflows -> allow");
      assertThat(rec.reason()).isEqualTo("no push rule matches; push is allowed;"
          + " it changes CI workflows (.github/workflows/ci.yml)");
    });
  }

  // ---- workflow changes (push-workflows)

  @Test
  void aWorkflowChangeIsRefusedByDefaultNamingItsFilesAndMintsNothing() throws Exception {
    RevCommit ci = commit(client, "add ci\n",
        Map.of("README.md", "base\n", ".github/workflows/ci.yml", "on: push\n"), base);
    PushResult r = pushToMain(PushRules.ALLOW_ALL, ci);

    assertThat(message(r, MAIN)).isEqualTo("Control Center policy: pushing a change to CI"
        + " workflows is denied (push-workflows): .github/workflows/ci.yml");
    assertThat(idOf(upstream, MAIN)).isEqualTo(base);
    assertThat(access.leases).isEmpty();
    assertThat(audit.records).singleElement().satisfies(rec -> {
      assertThat(rec.decision()).isEqualTo("denied");
      assertThat(rec.code()).isEqualTo("RULE_DENIED");
      assertThat(rec.rule()).isEqualTo("push-workflows -> deny");
    });
  }

  @Test
  void aWorkflowChangeThatPushWorkflowsAsksAboutWaitsForAnApprover() throws Exception {
    pushWorkflows = Decision.ASK;
    approvals = (q, progress) -> {
      questions.add(q);
      return Approvals.ApprovalAnswer.allow("alice");
    };
    RevCommit ci = commit(client, "add ci\n",
        Map.of("README.md", "base\n", ".github/workflows/ci.yml", "on: push\n"), base);
    PushResult r = pushToMain(PushRules.ALLOW_ALL, ci);

    assertThat(status(r, MAIN)).isEqualTo(RemoteRefUpdate.Status.OK);
    assertThat(questions).singleElement().satisfies(q -> {
      assertThat(q.rule()).isEqualTo("push-workflows -> ask");
      assertThat(q.reason()).isEqualTo("pushing a change to CI workflows needs approval"
          + " (push-workflows): .github/workflows/ci.yml");
    });
    assertThat(access.leases).singleElement().satisfies(l -> assertThat(l.workflows).isTrue());
  }

  @Test
  void aRefThatAlsoNeedsApprovalIsAskedAboutOnceNamingBothRules() throws Exception {
    pushWorkflows = Decision.ASK;
    approvals = (q, progress) -> {
      questions.add(q);
      return Approvals.ApprovalAnswer.refuse(RefusalCode.APPROVAL_DENIED, "denied by alice");
    };
    TestRepos.setRef(client, MAIN, commit(client, "add ci\n",
        Map.of("README.md", "base\n", ".github/workflows/ci.yml", "on: push\n"), base));

    PushResult r = push(askMain(), false, "refs/heads/main:refs/heads/main");

    assertThat(message(r, MAIN)).isEqualTo("Control Center policy: denied by alice");
    assertThat(questions).singleElement().satisfies(q -> {
      assertThat(q.rule()).isEqualTo("push refs/heads/main -> ask and push-workflows -> ask");
      assertThat(q.reason()).isEqualTo(
          "main needs a human; it changes CI workflows (.github/workflows/ci.yml)");
    });
    assertThat(access.leases).isEmpty();
  }

  @Test
  void onlyTheRefBringingTheWorkflowChangeIsRefusedAndTheRestLandsWithoutTheWorkflowsPermission()
      throws Exception {
    TestRepos.setRef(client, "refs/heads/docs", clientCommit("docs", base));
    Map<String, String> files = new HashMap<>(Map.of("README.md", "base\n"));
    for (String name : List.of("a", "b", "c", "d")) {
      files.put(".github/workflows/" + name + ".yml", "on: push\n");
    }
    TestRepos.setRef(client, "refs/heads/ci", commit(client, "four workflows\n", files, base));

    PushResult r = push(PushRules.ALLOW_ALL, false, "refs/heads/docs:refs/heads/docs",
        "refs/heads/ci:refs/heads/ci");

    assertThat(status(r, "refs/heads/docs")).isEqualTo(RemoteRefUpdate.Status.OK);
    assertThat(message(r, "refs/heads/ci")).isEqualTo("Control Center policy: pushing a change"
        + " to CI workflows is denied (push-workflows): .github/workflows/a.yml,"
        + " .github/workflows/b.yml, .github/workflows/c.yml and 1 more");
    assertThat(idOf(upstream, "refs/heads/ci")).isNull();
    assertThat(access.leases).singleElement().satisfies(l -> assertThat(l.workflows).isFalse());
  }

  // ---- refused by the rule

  @ParameterizedTest
  @ValueSource(strings = {"plan", "review", "orchestrate"})
  void aReadOnlyModeRefusesEveryPushNamingTheModeWhateverTheRulesAllow(String id)
      throws Exception {
    // A run's mode reaches the gateway: in a read-only mode the command policy denies `git push`,
    // and a push that did not go through the hook (a script, another client) is refused here too.
    mode = Mode.fromId(id);
    TestRepos.setRef(client, MAIN, clientCommit("next", base));
    approvals = (q, progress) -> {
      throw new AssertionError("a read-only mode asks nobody: " + q);
    };

    PushResult r = push(PushRules.ALLOW_ALL, false, "refs/heads/main:refs/heads/main");

    assertThat(status(r, MAIN)).isEqualTo(RemoteRefUpdate.Status.REJECTED_OTHER_REASON);
    assertThat(message(r, MAIN)).isEqualTo("Control Center policy: push to refs/heads/main is"
        + " denied in " + id + " mode, which is read-only");
    assertThat(idOf(upstream, MAIN)).isEqualTo(base);
    assertThat(access.leases).isEmpty();
    assertThat(audit.records).singleElement().satisfies(rec -> {
      assertThat(rec.decision()).isEqualTo("denied");
      assertThat(rec.rule()).isEqualTo(id + " mode");
      assertThat(rec.reason()).endsWith("denied in " + id + " mode, which is read-only");
    });
  }

  @Test
  void deniesPushToMainWhenRuleSaysDeny() throws Exception {
    PushResult r = pushToMain(denyMain(), clientCommit("next", base));

    assertThat(status(r, MAIN)).isEqualTo(RemoteRefUpdate.Status.REJECTED_OTHER_REASON);
    assertThat(message(r, MAIN)).isEqualTo("Control Center policy: push to main is denied");
    assertThat(idOf(upstream, MAIN)).isEqualTo(base);
    assertThat(idOf(cache, MAIN)).isEqualTo(base);
    assertThat(access.leases).isEmpty();
    assertThat(audit.records).singleElement().satisfies(rec -> {
      assertThat(rec.decision()).isEqualTo("denied");
      assertThat(rec.code()).isEqualTo("RULE_DENIED");
      assertThat(rec.rule()).isEqualTo("push refs/heads/main -> deny");
      assertThat(rec.reason()).isEqualTo("push to main is denied");
      assertThat(rec.outcome()).isEqualTo("not forwarded");
    });
  }

  @Test
  void aNonAtomicPushForwardsWhatTheRuleAllowsAndRefusesTheRest() throws Exception {
    RevCommit next = nextOnMainAndFeature();

    PushResult r = pushMainAndFeature(denyMain(), false);

    assertThat(message(r, MAIN)).isEqualTo("Control Center policy: push to main is denied");
    assertThat(status(r, "refs/heads/feature")).isEqualTo(RemoteRefUpdate.Status.OK);
    assertThat(idOf(upstream, MAIN)).isEqualTo(base);
    assertThat(idOf(upstream, "refs/heads/feature")).isEqualTo(next);
  }

  @Test
  void anAtomicPushWithOneRefusedRefMovesNothing() throws Exception {
    nextOnMainAndFeature();

    PushResult r = pushMainAndFeature(denyMain(), true);

    assertThat(message(r, MAIN)).isEqualTo("Control Center policy: push to main is denied");
    assertThat(status(r, "refs/heads/feature")).isEqualTo(RemoteRefUpdate.Status.REJECTED_OTHER_REASON);
    assertThat(message(r, "refs/heads/feature")).isEqualTo(ATOMIC_ABORTED);
    assertThat(idOf(upstream, "refs/heads/feature")).isNull();
    assertThat(idOf(cache, "refs/heads/feature")).isNull();
    assertThat(access.leases).isEmpty();
    assertThat(audit.records).extracting(AuditEntry::ref, AuditEntry::code)
        .containsExactlyInAnyOrder(
        org.assertj.core.groups.Tuple.tuple(MAIN, "RULE_DENIED"),
        org.assertj.core.groups.Tuple.tuple("refs/heads/feature", "ATOMIC_ABORTED"));
  }

  @Test
  void deniesDeletesByKindAndAllowsOtherUpdatesOfTheSameRefs() throws Exception {
    PushRules noDeletes = PushRules.of(List.of(new PushRule(RefPattern.parse("refs/heads/**"),
        Set.of(UpdateKind.DELETE), Decision.DENY, "deleting branches is denied")));
    TestRepos.setRef(client, "refs/heads/feature", clientCommit("feature", base));

    PushResult r = push(noDeletes, false, ":refs/heads/old", "refs/heads/feature:refs/heads/feature");

    assertThat(message(r, "refs/heads/old")).isEqualTo("Control Center policy: deleting branches is denied");
    assertThat(status(r, "refs/heads/feature")).isEqualTo(RemoteRefUpdate.Status.OK);
    assertThat(idOf(upstream, "refs/heads/old")).isEqualTo(base);
  }

  @Test
  void aForcePushIsJudgedAsForce() throws Exception {
    PushRules noForce = PushRules.of(List.of(new PushRule(RefPattern.parse("refs/heads/**"),
        Set.of(UpdateKind.FORCE), Decision.DENY, null)));
    TestRepos.setRef(client, "refs/heads/x", commit(client, "other\n", Map.of("a", "b")));

    PushResult r = push(noForce, false, "+refs/heads/x:refs/heads/main");

    assertThat(message(r, MAIN)).isEqualTo("Control Center policy: push to refs/heads/** is denied");
    assertThat(audit.records).singleElement().satisfies(rec -> {
      assertThat(rec.kind()).isEqualTo("force");
      assertThat(rec.rule()).isEqualTo("push refs/heads/** [force] -> deny");
    });
  }

  // ---- ask first

  @Test
  void askWithNoApproverIsADeny() throws Exception {
    PushResult r = pushToMain(askMain(), clientCommit("next", base));

    assertThat(message(r, MAIN))
        .isEqualTo("Control Center policy: main needs a human (no approver is connected)");
    assertThat(idOf(upstream, MAIN)).isEqualTo(base);
    assertThat(audit.records).singleElement()
        .satisfies(rec -> assertThat(rec.code()).isEqualTo("NO_APPROVER"));
  }

  @Test
  void inASandboxedChatRunEveryPushAsksAsTheHookAsksWithoutASandbox() throws Exception {
    // The hook lets `git push` through to the gateway there: the mode's ask is the gateway's.
    boundaries = Set.of(Boundary.GIT_PUSH);
    TestRepos.setRef(client, MAIN, clientCommit("next", base));
    TestRepos.setRef(client, "refs/heads/feature", clientCommit("feature", base));

    PushResult r = push(PushRules.ALLOW_ALL, false, "refs/heads/main:refs/heads/main",
        "+refs/heads/feature:refs/heads/old");

    assertThat(message(r, MAIN)).isEqualTo("Control Center policy: push to refs/heads/main needs"
        + " approval in chat mode (no approver is connected)");
    assertThat(message(r, "refs/heads/old")).isEqualTo("Control Center policy: push to"
        + " refs/heads/old needs approval in chat mode (no approver is connected)");
    assertThat(idOf(upstream, MAIN)).isEqualTo(base);
    assertThat(idOf(upstream, "refs/heads/old")).isEqualTo(base);
    assertThat(audit.records).hasSize(2).allSatisfy(rec -> {
      assertThat(rec.code()).isEqualTo("NO_APPROVER");
      assertThat(rec.rule()).isEqualTo("chat mode");
    });
  }

  @Test
  void inASandboxedChatRunAnApproversYesLetsThePushLandAndARuleStillDenies() throws Exception {
    boundaries = Set.of(Boundary.GIT_PUSH);
    approvals = (q, progress) -> {
      questions.add(q);
      return Approvals.ApprovalAnswer.allow("alice");
    };
    RevCommit feature = clientCommit("feature", base);
    TestRepos.setRef(client, "refs/heads/feature", feature);
    TestRepos.setRef(client, MAIN, clientCommit("next", base));

    PushResult r = push(denyMain(), false, "refs/heads/feature:refs/heads/feature",
        "refs/heads/main:refs/heads/main");

    assertThat(status(r, "refs/heads/feature")).isEqualTo(RemoteRefUpdate.Status.OK);
    assertThat(idOf(upstream, "refs/heads/feature")).isEqualTo(feature);
    assertThat(questions).singleElement().satisfies(q -> assertThat(q.reason())
        .isEqualTo("push to refs/heads/feature needs approval in chat mode"));
    assertThat(message(r, MAIN)).isEqualTo("Control Center policy: push to main is denied");
  }

  @Test
  void withoutASandboxTheHookHasAskedAndTheGatewayDoesNotAskAgain() throws Exception {
    assertAnAllowedPushToMainLands();
  }

  @Test
  void aPushWaitingTooLongForItsRunsOtherJudgementsIsRefusedToRetry() throws Exception {
    threads.close();
    threads = new GatewayThreads(1, Duration.ZERO);
    TestRepos.setRef(client, "refs/heads/feature", clientCommit("next", base));
    try (RunSlots.Slot busy = threads.judgements().tryTake("run-1").orElseThrow()) {
      PushResult r = push(PushRules.ALLOW_ALL, false, "refs/heads/feature:refs/heads/feature");

      assertThat(message(r, "refs/heads/feature")).isEqualTo("Control Center policy: this run"
          + " already has 1 push being judged (one run may use its share of the appliance's"
          + " cores) and this one waited 0 s; nothing was pushed, push again once those finish");
    }
    assertThat(idOf(upstream, "refs/heads/feature")).isNull();
    assertThat(access.leases).isEmpty();
    assertThat(audit.records).singleElement()
        .satisfies(rec -> assertThat(rec.code()).isEqualTo("JUDGE_BUSY"));
    assertThat(threads.judgements().inFlight("run-1")).isZero();
  }

  @Test
  void anApproverSayingNoRefusesWithTheirReason() throws Exception {
    approvals = (q, progress) -> {
      questions.add(q);
      return Approvals.ApprovalAnswer.refuse(RefusalCode.APPROVAL_DENIED, "denied by alice: not today");
    };
    PushResult r = pushToMain(askMain(), clientCommit("next", base));

    assertThat(message(r, MAIN)).isEqualTo("Control Center policy: denied by alice: not today");
    assertThat(idOf(upstream, MAIN)).isEqualTo(base);
    assertThat(access.leases).isEmpty();
    assertThat(audit.records).singleElement().satisfies(rec -> {
      assertThat(rec.code()).isEqualTo("APPROVAL_DENIED");
      assertThat(rec.rule()).isEqualTo("push refs/heads/main -> ask");
      assertThat(rec.reason()).isEqualTo("denied by alice: not today");
    });
  }

  @Test
  void aPushThatAskedIsHeldUntilItsAnswerIsWrittenAndItClosed() throws Exception {
    // The appliance's stop withdraws every question, then waits for this before its connectors
    // stop: their graceful stop would cut a refusal still being written (HeldPushes).
    String why =
        "the question was withdrawn before anyone answered: the appliance is shutting down";
    approvals = (q, progress) ->
        Approvals.ApprovalAnswer.refuse(RefusalCode.APPROVAL_CANCELLED, why);
    Push pushed = new Push(run(askMain()), REPO, java.util.Optional.empty(), access);
    List<Boolean> answeredWhenGitHadIt = new ArrayList<>();
    PushResult r = pushAsTheFilterDoes(clientCommit("next", base), pushed, access, audit,
        () -> answeredWhenGitHadIt.add(answeredAtOnce()));

    assertThat(message(r, MAIN)).isEqualTo("Control Center policy: " + why);
    assertThat(answeredWhenGitHadIt).as("held until the push closed").containsExactly(false);
    assertThat(answeredAtOnce()).isTrue();
    // a push nobody was asked about is never counted
    Push allowed = new Push(run(PushRules.ALLOW_ALL), REPO, java.util.Optional.empty(), access);
    answeredWhenGitHadIt.clear();
    pushAsTheFilterDoes(clientCommit("other", base), allowed, access, audit,
        () -> answeredWhenGitHadIt.add(answeredAtOnce()));
    assertThat(answeredWhenGitHadIt).containsExactly(true);
  }

  private boolean answeredAtOnce() {
    try {
      return held.awaitAnswered(java.time.Duration.ZERO);
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void anAnswerWithoutACodeCountsAsApprovalDenied() throws Exception {
    approvals = (q, progress) -> new Approvals.ApprovalAnswer(false, null, "no", null);
    PushResult r = pushToMain(askMain(), clientCommit("next", base));

    assertThat(message(r, MAIN)).isEqualTo("Control Center policy: no");
    assertThat(audit.records.get(0).code()).isEqualTo("APPROVAL_DENIED");
  }

  @Test
  void anApproverSayingYesLetsThePushThroughAndSawWhatItApproved() throws Exception {
    approvals = (q, progress) -> {
      questions.add(q);
      progress.accept("waiting for approval of refs/heads/main");
      return Approvals.ApprovalAnswer.allow("alice");
    };
    RevCommit first = clientCommit("first change", base);
    RevCommit second = clientCommit("second change", first);
    PushResult r = pushToMain(askMain(), second);

    assertThat(status(r, MAIN)).isEqualTo(RemoteRefUpdate.Status.OK);
    assertThat(idOf(upstream, MAIN)).isEqualTo(second);
    assertThat(r.getMessages()).contains("waiting for approval of refs/heads/main");
    assertThat(questions).containsExactly(new ApprovalQuestion("run-1", "ws-1", "acme/widget", MAIN,
        "update", base.name(), second.name(), "push refs/heads/main -> ask", "main needs a human",
        List.of(second.abbreviate(10).name() + " second change",
            first.abbreviate(10).name() + " first change")));
    assertThat(audit.records).singleElement().satisfies(rec -> {
      assertThat(rec.decision()).isEqualTo("allowed");
      assertThat(rec.code()).isNull();
      assertThat(rec.reason()).isEqualTo("main needs a human (approved by alice)");
    });
    assertThat(audit.outcomeOf(0)).isEqualTo("ok");
  }

  @Test
  void aPushWaitingForAnApproverIsInTheCacheWhileItWaitsAndLandsAfterwards() throws Exception {
    // The approvers' page reads a held push's changes from the cache (Gateway#diffstat); a pack
    // held in memory (ReceivedInMemory) is stored, with its .keep, before anyone is asked.
    long budget = ReceivedInMemory.BUDGET.left();
    RevCommit next = clientCommit("next", base);
    List<String> seen = new ArrayList<>();
    approvals = (q, progress) -> {
      try (Repository opened = caches.open(REPO)) {
        seen.add("in the cache: " + opened.getObjectDatabase().has(next));
        seen.add(".keep files: " + keeps().size());
        seen.add("diffstat: " + Diffstat.of(opened, MAIN, base.name(), next.name(), null)
            .files().size());
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      seen.add("memory given back: " + (ReceivedInMemory.BUDGET.left() == budget));
      return Approvals.ApprovalAnswer.allow("alice");
    };
    PushResult r = pushToMain(askMain(), next);

    assertThat(status(r, MAIN)).isEqualTo(RemoteRefUpdate.Status.OK);
    assertThat(seen).containsExactly("in the cache: true", ".keep files: 1", "diffstat: 1",
        "memory given back: true");
    dev.pushgate.testkit.Wait.until(java.time.Duration.ofSeconds(30),
        "the .keep deleted once the refs landed", () -> keeps().isEmpty());
    assertThat(syncedCache().exactRef(MAIN).getObjectId()).isEqualTo(next);
  }

  @Test
  void onlyTheRefsTheRuleSaysAskAboutAreAsked() throws Exception {
    approvals = (q, progress) -> {
      questions.add(q);
      return Approvals.ApprovalAnswer.allow("alice");
    };
    RevCommit next = nextOnMainAndFeature();

    pushMainAndFeature(askMain(), false);

    assertThat(questions).extracting(ApprovalQuestion::ref).containsExactly(MAIN);
    assertThat(idOf(upstream, "refs/heads/feature")).isEqualTo(next);
  }

  @Test
  void anAtomicPushWithARefusedRefAsksNobody() throws Exception {
    approvals = (q, progress) -> {
      questions.add(q);
      return Approvals.ApprovalAnswer.allow("alice");
    };
    nextOnMainAndFeature();
    PushRules rules = PushRules.of(List.of(
        PushRule.of("refs/heads/main", Decision.ASK, "main needs a human"),
        PushRule.of("refs/heads/feature", Decision.DENY, "no features")));

    pushMainAndFeature(rules, true);

    assertThat(questions).isEmpty();
    assertThat(idOf(upstream, MAIN)).isEqualTo(base);
    assertThat(idOf(upstream, "refs/heads/feature")).isNull();
  }

  // ---- failures

  @Test
  void anUnavailableAuditLogRefusesEveryCommand() throws Exception {
    audit.down = true;
    nextOnMainAndFeature();

    PushResult r = pushMainAndFeature(PushRules.ALLOW_ALL, false);

    String refused = "Control Center policy: the audit log is unavailable, so nothing can be pushed;"
        + " try again later";
    assertThat(message(r, MAIN)).isEqualTo(refused);
    assertThat(message(r, "refs/heads/feature")).isEqualTo(refused);
    assertThat(idOf(upstream, MAIN)).isEqualTo(base);
    assertThat(idOf(upstream, "refs/heads/feature")).isNull();
    assertThat(access.leases).isEmpty();
  }

  @Test
  void aFailureToSettleTheAuditDoesNotUndoAPushThatLanded() throws Exception {
    audit.settleDown = true;
    assertAnAllowedPushToMainLands();
  }

  @Test
  void noWriteTokenMeansNothingIsPushed() throws Exception {
    access.mintFailure = new UpstreamException("GitHub answered 403");
    PushResult r = pushToMain(PushRules.ALLOW_ALL, clientCommit("next", base));

    assertThat(status(r, MAIN)).isEqualTo(RemoteRefUpdate.Status.REJECTED_OTHER_REASON);
    assertThat(message(r, MAIN))
        .isEqualTo("the gateway could not get a write token for acme/widget; nothing was pushed");
    assertThat(idOf(upstream, MAIN)).isEqualTo(base);
    assertThat(audit.outcomeOf(0)).isEqualTo(
        "rejected upstream: the gateway could not get a write token for acme/widget; nothing was pushed");
  }

  @Test
  void aRefThatMovedUpstreamIsReportedStaleAndTheCacheIsNotMoved() throws Exception {
    RevCommit theirs = commit(upstream, "theirs\n", Map.of("README.md", "theirs\n"), base);
    TestRepos.setRef(upstream, MAIN, theirs);
    RevCommit next = clientCommit("next", base);
    PushResult r = pushToMain(PushRules.ALLOW_ALL, next);

    assertThat(status(r, MAIN)).isEqualTo(RemoteRefUpdate.Status.REJECTED_OTHER_REASON);
    assertThat(message(r, MAIN))
        .isEqualTo("stale info: upstream changed since the gateway read it; fetch and try again");
    assertThat(idOf(upstream, MAIN)).isEqualTo(theirs);
    assertThat(idOf(cache, MAIN)).isEqualTo(base);
    assertThat(audit.outcomeOf(0)).isEqualTo(
        "rejected upstream: stale info: upstream changed since the gateway read it; fetch and try again");
    assertThat(access.leases).singleElement().satisfies(l -> assertThat(l.closes).hasValue(1));
  }

  @Test
  void aDeadUpstreamRefusesEveryCommandWithoutTheTokenAndClosesTheLease() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    access.url = "http://127.0.0.1:" + port + "/acme/widget.git";
    nextOnMainAndFeature();

    PushResult r = pushMainAndFeature(PushRules.ALLOW_ALL, true);

    String failed = "upstream push failed: " + access.url + ": connection failed";
    assertThat(message(r, MAIN)).isEqualTo(failed);
    assertThat(message(r, "refs/heads/feature")).isEqualTo(failed);
    assertThat(r.getMessages()).doesNotContain(RecordingUpstream.WRITE_TOKEN.reveal());
    assertThat(idOf(cache, MAIN)).isEqualTo(base);
    assertThat(access.leases).singleElement().satisfies(l -> assertThat(l.closes).hasValue(1));
  }

  @Test
  void anExceptionInsideTheGatewayRefusesEveryCommand() throws Exception {
    approvals = (q, progress) -> {
      throw new IllegalStateException("approval desk crashed");
    };
    nextOnMainAndFeature();

    PushResult r = push(askMain(), false, "refs/heads/feature:refs/heads/feature",
        "refs/heads/main:refs/heads/main");

    String refused = "Control Center policy: internal error in the push gateway; nothing was pushed";
    assertThat(message(r, MAIN)).isEqualTo(refused);
    assertThat(message(r, "refs/heads/feature")).isEqualTo(refused);
    assertThat(idOf(upstream, "refs/heads/feature")).isNull();
    assertThat(access.leases).isEmpty();
  }

  @Test
  void theFactoryRefusesARequestTheFilterDidNotLetThrough() {
    GatewayReceivePackFactory factory = new GatewayReceivePackFactory(services());

    assertThatThrownBy(() -> factory.create(request(Map.of()), cache))
        .isInstanceOf(ServiceNotAuthorizedException.class);
    assertThatThrownBy(() -> factory.create(
        request(Map.of(RunContext.class.getName(), run(PushRules.ALLOW_ALL))), cache))
        .isInstanceOf(ServiceNotAuthorizedException.class);
  }

  // ---- content rules

  @Test
  void aSecretFileIsRefusedByTheDefaultRulesNamingTheFileAndTheRule() throws Exception {
    RevCommit env = commit(client, "config\n",
        Map.of("README.md", "base\n", "config/.env", "DEBUG=1\n"), base);
    PushResult r = pushToMain(PushRules.ALLOW_ALL, env);

    assertThat(message(r, MAIN))
        .isEqualTo("Control Center policy: config/.env matches \"no secret files\"");
    assertThat(idOf(upstream, MAIN)).isEqualTo(base);
    assertThat(audit.records).singleElement().satisfies(rec -> {
      assertThat(rec.rule()).isEqualTo("content \"no secret files\" -> deny");
      assertThat(rec.reason()).isEqualTo("config/.env matches \"no secret files\" in commit "
          + env.abbreviate(7).name());
    });
  }

  @Test
  void aDetectedSecretIsRefusedWithItsLineAndNeverShown() throws Exception {
    String secret = FakeSecrets.githubPat();
    TestRepos.setRef(client, MAIN, commit(client, "app\n",
        Map.of("README.md", "base\n", "src/app.py", "import os\nTOKEN = \"" + secret + "\"\n"),
        base));

    PushResult r = push(PushRules.ALLOW_ALL, false, "refs/heads/main:refs/heads/main");

    assertThat(message(r, MAIN)).isEqualTo("Control Center policy: src/app.py:2 holds a GitHub"
        + " personal access token (rule \"no secrets\", gitleaks id github-pat)");
    assertThat(idOf(upstream, MAIN)).isEqualTo(base);
    assertThat(audit.records.toString()).doesNotContain(secret).contains("github-pat");
  }

  @Test
  void aTokenInACommitMessageIsRefusedAndNeverShown() throws Exception {
    String secret = FakeSecrets.githubPat();
    RevCommit c = commit(client, "fix\n\nused " + secret + " to test\n",
        Map.of("README.md", "base\n", "a.txt", "a\n"), base);
    PushResult r = pushToMain(PushRules.ALLOW_ALL, c);

    assertThat(message(r, MAIN)).isEqualTo("Control Center policy: the message of commit "
        + c.abbreviate(7).name() + " holds a GitHub personal access token (rule \"no secrets\","
        + " gitleaks id github-pat)");
    assertThat(idOf(upstream, MAIN)).isEqualTo(base);
    assertThat(audit.records.toString()).doesNotContain(secret);
  }

  @Test
  void aTokenInAFileOrDirectoryNameIsRefusedWithoutShowingThePath() throws Exception {
    String secret = FakeSecrets.awsAccessKey();
    RevCommit c = commit(client, "keys\n",
        Map.of("README.md", "base\n", "keys/" + secret + "/notes.txt", "n\n"), base);
    PushResult r = pushToMain(PushRules.ALLOW_ALL, c);

    assertThat(message(r, MAIN)).isEqualTo("Control Center policy: a path in commit "
        + c.abbreviate(7).name() + " holds an AWS access key (rule \"no secrets\", gitleaks id"
        + " aws-access-token)");
    assertThat(audit.records.toString()).doesNotContain(secret);
  }

  @Test
  void aTokenInAnAnnotatedTagsMessageOrARefNameIsRefused() throws Exception {
    String secret = FakeSecrets.githubPat();
    ObjectId tag;
    try (org.eclipse.jgit.lib.ObjectInserter ins = client.newObjectInserter()) {
      org.eclipse.jgit.lib.TagBuilder t = new org.eclipse.jgit.lib.TagBuilder();
      t.setTag("v9");
      t.setObjectId(base, org.eclipse.jgit.lib.Constants.OBJ_COMMIT);
      t.setTagger(new org.eclipse.jgit.lib.PersonIdent("Agent", "agent@example.invalid"));
      t.setMessage("release\n" + secret + "\n");
      tag = ins.insert(t);
      ins.flush();
    }
    TestRepos.setRef(client, "refs/tags/v9", tag);
    TestRepos.setRef(client, "refs/heads/x-" + secret, base);

    PushResult r = push(PushRules.ALLOW_ALL, false, "refs/tags/v9:refs/tags/v9",
        "refs/heads/x-" + secret + ":refs/heads/x-" + secret);

    assertThat(message(r, "refs/tags/v9")).isEqualTo("Control Center policy: the tag message"
        + " holds a GitHub personal access token (rule \"no secrets\", gitleaks id github-pat)");
    assertThat(message(r, "refs/heads/x-" + secret)).isEqualTo("Control Center policy: the ref"
        + " name holds a GitHub personal access token (rule \"no secrets\", gitleaks id"
        + " github-pat)");
  }

  @Test
  void aTokenInAFileGitleaksAllowsByNameIsStillRefused() throws Exception {
    // A text file named like an image, or under node_modules/: the name is the pusher's choice.
    RevCommit c = commit(client, "assets\n", Map.of("README.md", "base\n",
        "web/node_modules/x/logo.png", "TOKEN=" + FakeSecrets.githubPat() + "\n"), base);
    PushResult r = pushToMain(PushRules.ALLOW_ALL, c);

    assertThat(message(r, MAIN)).isEqualTo("Control Center policy: web/node_modules/x/logo.png:1"
        + " holds a GitHub personal access token (rule \"no secrets\", gitleaks id github-pat)");
  }

  @Test
  void aSecretAddedThenDeletedInTheSamePushIsStillRefused() throws Exception {
    String secret = FakeSecrets.awsAccessKey();
    RevCommit added = commit(client, "oops\n",
        Map.of("README.md", "base\n", "deploy.sh", "export KEY=" + secret + "\n"), base);
    RevCommit removed = commit(client, "remove it\n",
        Map.of("README.md", "base\n", "deploy.sh", "export KEY=$KEY\n"), added);
    PushResult r = pushToMain(PushRules.ALLOW_ALL, removed);

    assertThat(message(r, MAIN)).startsWith("Control Center policy: deploy.sh:1 holds an AWS");
    assertThat(audit.records).singleElement().satisfies(rec -> assertThat(rec.reason())
        .endsWith("in commit " + added.abbreviate(7).name()));
  }

  @Test
  void aSecretNearTheEndOfABlobStreamedFromThePackIsFoundOnItsLine() throws Exception {
    StringBuilder big = new StringBuilder();
    for (int n = 0; n < 60_000; n++) {
      big.append("log line ").append(n).append(" of a large text file\n");
    }
    big.append("stripe = ").append(FakeSecrets.stripeLive()).append('\n');
    assertThat(big.length()).isGreaterThan(ContentJudge.STREAM_ABOVE);
    TestRepos.setRef(client, MAIN, commit(client, "log\n",
        Map.of("README.md", "base\n", "logs/app.log", big.toString()), base));

    PushResult r = push(PushRules.ALLOW_ALL, false, "refs/heads/main:refs/heads/main");

    assertThat(message(r, MAIN)).isEqualTo("Control Center policy: logs/app.log:60001 holds a"
        + " Stripe API key (rule \"no secrets\", gitleaks id stripe-access-token)");
  }

  /** A review's finding: a keyring longer than the scanner's overlap, across a chunk's end. */
  @Test
  void aLongPrivateKeyBlockAcrossTheScannersChunkBoundaryIsRefused() throws Exception {
    StringBuilder text = new StringBuilder();
    int line = 0;
    while (text.length() < SecretScanner.CHUNK - 8_500) {
      text.append("log line ").append(line++).append(" of a large text file\n");
    }
    text.append("-----BEGIN PGP ").append("PRIVATE KEY BLOCK-----\n\n");
    for (int i = 0; i < 150; i++) {
      text.append(FakeSecrets.mixed(64, i)).append('\n');
    }
    text.append("-----END PGP ").append("PRIVATE KEY BLOCK-----\n");
    text.append("after the key\n".repeat(20_000));
    TestRepos.setRef(client, MAIN, commit(client, "keys\n",
        Map.of("README.md", "base\n", "notes/keys.txt", text.toString()), base));

    PushResult r = push(PushRules.ALLOW_ALL, false, "refs/heads/main:refs/heads/main");

    assertThat(message(r, MAIN)).isEqualTo("Control Center policy: notes/keys.txt:" + (line + 1)
        + " holds a private key (rule \"no secrets\", gitleaks id private-key)");
  }

  /**
   * Issue 29: the sandbox refuses {@code mkdir .env} and a symlink to {@code .env}; the push
   * refuses a file under such a directory and such a symlink by the same rule, in its words.
   */
  @Test
  void aSecretFileNameAsADirectoryOrASymlinkTargetIsRefused() throws Exception {
    Map<String, String> refused = Map.of(
        ".env/config", "Control Center policy: .env/config matches \"no secret files\"",
        "deploy/id_rsa/key", "Control Center policy: deploy/id_rsa/key matches \"no secret"
            + " files\"",
        "link", "Control Center policy: link matches \"no secret files\" (a symlink to"
            + " ../config/.env)");
    for (Map.Entry<String, String> f : refused.entrySet()) {
      TestRepos.setRef(client, MAIN, commit(client, f.getKey() + "\n", Map.of("README.md",
          "base\n", f.getKey(), f.getKey().equals("link")
              ? TestRepos.link("../config/.env") : "DEBUG=1\n"), base));

      PushResult r = push(PushRules.ALLOW_ALL, false, "refs/heads/main:refs/heads/main");

      assertThat(message(r, MAIN)).as(f.getKey()).isEqualTo(f.getValue());
      assertThat(idOf(upstream, MAIN)).isEqualTo(base);
    }
    TestRepos.setRef(client, MAIN, commit(client, "templates\n", Map.of("README.md", "base\n",
        ".env.example/readme", "see\n", "example", TestRepos.link(".env.example")), base));
    assertThat(status(push(PushRules.ALLOW_ALL, false, "refs/heads/main:refs/heads/main"), MAIN))
        .isEqualTo(RemoteRefUpdate.Status.OK);
  }

  @Test
  void renamingAFileUpstreamHasOntoADeniedNameIsRefused() throws Exception {
    RevCommit notes = commit(client, "notes\n",
        Map.of("README.md", "base\n", "notes.txt", "DEBUG=1\n"), base);
    TestRepos.setRef(client, MAIN, notes);
    assertThat(status(push(PushRules.ALLOW_ALL, false, "refs/heads/main:refs/heads/main"), MAIN))
        .isEqualTo(RemoteRefUpdate.Status.OK);
    syncedCache();
    TestRepos.setRef(client, MAIN, commit(client, "rename\n",
        Map.of("README.md", "base\n", ".env", "DEBUG=1\n"), notes));

    PushResult r = push(PushRules.ALLOW_ALL, false, "refs/heads/main:refs/heads/main");

    assertThat(message(r, MAIN))
        .isEqualTo("Control Center policy: .env matches \"no secret files\"");
    assertThat(idOf(upstream, MAIN)).isEqualTo(notes);
  }

  @Test
  void eachRuleKindAllowsAsksAndDenies() throws Exception {
    content = WorkspaceRules.parse("""
        content:
          - name: fixtures
            paths: ["tests/fixtures/**"]
            decision: allow
          - name: no big files
            maxSize: 1KiB
            decision: deny
          - name: binaries need a look
            binary: true
            decision: ask
          - name: no secrets
            secrets: [github-pat]
            decision: deny
        """).content();
    approvals = (q, progress) -> {
      questions.add(q);
      return Approvals.ApprovalAnswer.refuse(RefusalCode.APPROVAL_DENIED, "denied by alice");
    };
    String secret = FakeSecrets.githubPat();
    TestRepos.setRef(client, "refs/heads/fixture", commit(client, "fixture\n", Map.of(
        "README.md", "base\n", "tests/fixtures/token.txt", secret + "\n" + "x".repeat(2000)),
        base));
    TestRepos.setRef(client, "refs/heads/big", commit(client, "big\n",
        Map.of("README.md", "base\n", "data.csv", "1,2\n".repeat(400)), base));
    TestRepos.setRef(client, "refs/heads/bin", commit(client, "bin\n",
        Map.of("README.md", "base\n", "logo.png", "PNG\0\0data"), base));
    TestRepos.setRef(client, "refs/heads/token", commit(client, "token\n",
        Map.of("README.md", "base\n", "a.txt", secret + "\n"), base));

    PushResult r = push(PushRules.ALLOW_ALL, false, "refs/heads/fixture:refs/heads/fixture",
        "refs/heads/big:refs/heads/big", "refs/heads/bin:refs/heads/bin",
        "refs/heads/token:refs/heads/token");

    assertThat(status(r, "refs/heads/fixture")).isEqualTo(RemoteRefUpdate.Status.OK);
    assertThat(message(r, "refs/heads/big")).isEqualTo("Control Center policy: data.csv is"
        + " larger than 1 KiB (rule \"no big files\")");
    assertThat(message(r, "refs/heads/bin")).isEqualTo("Control Center policy: denied by alice");
    assertThat(questions).singleElement().satisfies(q -> {
      assertThat(q.rule()).isEqualTo("content \"binaries need a look\" -> ask");
      assertThat(q.reason()).isEqualTo("logo.png is a binary file (rule \"binaries need a look\")");
    });
    assertThat(message(r, "refs/heads/token")).isEqualTo("Control Center policy: a.txt:1 holds a"
        + " GitHub personal access token (rule \"no secrets\", gitleaks id github-pat)");
  }

  @Test
  void noContentRulesLetASecretFileThrough() throws Exception {
    content = WorkspaceRules.parse("content: []").content();
    RevCommit env = commit(client, "env\n", Map.of("README.md", "base\n", ".env", "A=1\n"),
        base);
    TestRepos.setRef(client, MAIN, env);

    assertThat(status(push(PushRules.ALLOW_ALL, false, "refs/heads/main:refs/heads/main"), MAIN))
        .isEqualTo(RemoteRefUpdate.Status.OK);
    assertThat(idOf(upstream, MAIN)).isEqualTo(env);
  }

  @Test
  void aPushOfManyCommitsIsJudgedWholeAndNamesTheCommitThatBroughtTheSecret() throws Exception {
    RevCommit tip = base;
    Map<String, String> files = new HashMap<>(Map.of("README.md", "base\n"));
    RevCommit culprit = null;
    for (int n = 0; n < 200; n++) {
      files.put("src/f" + n + ".txt", "line " + n + "\n");
      if (n == 150) {
        files.put("src/f" + n + ".txt", "slack = " + FakeSecrets.slackBot() + "\n");
      }
      tip = commit(client, "c" + n + "\n", Map.copyOf(files), tip);
      if (n == 150) {
        culprit = tip;
      }
    }
    PushResult r = pushToMain(PushRules.ALLOW_ALL, tip);

    assertThat(message(r, MAIN)).isEqualTo("Control Center policy: src/f150.txt:1 holds a Slack"
        + " bot token (rule \"no secrets\", gitleaks id slack-bot-token)");
    String commit = culprit.abbreviate(7).name();
    assertThat(audit.records).singleElement()
        .satisfies(rec -> assertThat(rec.reason()).endsWith("in commit " + commit));
  }

  @Test
  void aRefStraightAtABlobIsJudgedByItsContent() throws Exception {
    ObjectId blob = clientBlob("TOKEN=" + FakeSecrets.githubPat() + "\n");
    TestRepos.setRef(client, "refs/tags/x", blob);

    PushResult r = push(PushRules.ALLOW_ALL, false, "refs/tags/x:refs/tags/x");

    assertThat(message(r, "refs/tags/x")).isEqualTo("Control Center policy: blob "
        + blob.abbreviate(7).name() + ":1 holds a GitHub personal access token (rule \"no"
        + " secrets\", gitleaks id github-pat)");
    assertThat(idOf(upstream, "refs/tags/x")).isNull();
    assertThat(audit.records).singleElement().satisfies(rec -> assertThat(rec.reason())
        .endsWith("in blob " + blob.abbreviate(7).name()));
  }

  @Test
  void aRefStraightAtATreeIsJudgedByItsEntriesPathsAndContent() throws Exception {
    ObjectId envTree = commit(client, "t\n", Map.of("config/.env", "A=1\n")).getTree();
    ObjectId secretTree = commit(client, "t\n",
        Map.of("src/app.py", "x = \"" + FakeSecrets.awsAccessKey() + "\"\n")).getTree();
    TestRepos.setRef(client, "refs/tags/env", envTree);
    TestRepos.setRef(client, "refs/tags/secret", secretTree);

    PushResult r = push(PushRules.ALLOW_ALL, false, "refs/tags/env:refs/tags/env",
        "refs/tags/secret:refs/tags/secret");

    assertThat(message(r, "refs/tags/env"))
        .isEqualTo("Control Center policy: config/.env matches \"no secret files\"");
    assertThat(message(r, "refs/tags/secret")).startsWith("Control Center policy: src/app.py:1"
        + " holds an AWS");
    assertThat(idOf(upstream, "refs/tags/env")).isNull();
    assertThat(idOf(upstream, "refs/tags/secret")).isNull();
  }

  @Test
  void anAnnotatedTagOfABlobOrATreeIsJudgedByWhatItPointsAt() throws Exception {
    ObjectId blob = clientBlob(FakeSecrets.privateKey());
    TestRepos.setRef(client, "refs/tags/b", TestRepos.annotatedTag(client, "b", blob));
    ObjectId tree = commit(client, "t\n", Map.of("id_rsa", "k\n")).getTree();
    ObjectId tagOfTag = TestRepos.annotatedTag(client, "t2",
        TestRepos.annotatedTag(client, "t1", tree));
    TestRepos.setRef(client, "refs/tags/t", tagOfTag);

    PushResult r = push(PushRules.ALLOW_ALL, false, "refs/tags/b:refs/tags/b",
        "refs/tags/t:refs/tags/t");

    assertThat(message(r, "refs/tags/b")).isEqualTo("Control Center policy: blob "
        + blob.abbreviate(7).name() + ":1 holds a private key (rule \"no secrets\", gitleaks id"
        + " private-key)");
    assertThat(message(r, "refs/tags/t"))
        .isEqualTo("Control Center policy: id_rsa matches \"no secret files\"");
  }

  @Test
  void aSecretFileNameIsRefusedHoweverItIsSpelledOrWhateverKindOfEntryItIs() throws Exception {
    ObjectId a = clientBlob("A=1\n");
    Map<String, ObjectId> spelled = new java.util.LinkedHashMap<>();
    spelled.put("upper", tree(FileMode.REGULAR_FILE, ".ENV", a));
    spelled.put("space", tree(FileMode.REGULAR_FILE, ".env ", a));
    spelled.put("dot", tree(FileMode.REGULAR_FILE, "x.pem.", a));
    spelled.put("zwnj", tree(FileMode.REGULAR_FILE, ".e\u200cnv", a));
    spelled.put("symlink", tree(FileMode.SYMLINK, ".env", clientBlob("/etc/passwd")));
    spelled.put("gitlink", tree(FileMode.GITLINK, ".env", base));
    List<String> specs = new ArrayList<>();
    for (Map.Entry<String, ObjectId> e : spelled.entrySet()) {
      RevCommit c = commitOfTree(e.getValue());
      TestRepos.setRef(client, "refs/heads/" + e.getKey(), c);
      specs.add("refs/heads/" + e.getKey() + ":refs/heads/" + e.getKey());
    }

    PushResult r = push(PushRules.ALLOW_ALL, false, specs.toArray(String[]::new));

    for (String ref : spelled.keySet()) {
      assertThat(message(r, "refs/heads/" + ref)).as(ref).endsWith("matches \"no secret files\"");
      assertThat(idOf(upstream, "refs/heads/" + ref)).as(ref).isNull();
    }
  }

  @Test
  void treesGitWouldRefuseAreRefusedBeforeAnyJudgement() throws Exception {
    ObjectId a = clientBlob("a\n");
    List<ObjectId> bad = List.of(tree(FileMode.REGULAR_FILE, "..", a),
        tree(FileMode.REGULAR_FILE, ".git", a), tree(FileMode.TREE, ".GIT",
            tree(FileMode.REGULAR_FILE, "config", a)),
        tree(FileMode.REGULAR_FILE, ".git\u200c", a), tree(FileMode.REGULAR_FILE, "a/.env", a),
        tree(FileMode.REGULAR_FILE, ".env", a, ".env", clientBlob("b\n")));
    for (ObjectId t : bad) {
      TestRepos.setRef(client, MAIN, commitOfTree(t));

      assertThat(unpackRefusal("refs/heads/main:refs/heads/main")).hasMessageContaining(
          "error occurred during unpacking on the remote end").hasMessageContaining(t.name());
      assertThat(idOf(upstream, MAIN)).isEqualTo(base);
    }
  }

  @Test
  void aNulBytePastGitsBinaryProbeLeavesTheFileTextAndItIsScanned() throws Exception {
    String text = "x".repeat(ContentJudge.BINARY_PROBE + 1000) + "\0\n" + "TOKEN = \""
        + FakeSecrets.githubPat() + "\"\n";
    TestRepos.setRef(client, MAIN, commit(client, "nul\n",
        Map.of("README.md", "base\n", "data.txt", text), base));

    PushResult r = push(PushRules.ALLOW_ALL, false, "refs/heads/main:refs/heads/main");

    assertThat(message(r, MAIN)).isEqualTo("Control Center policy: data.txt:2 holds a GitHub"
        + " personal access token (rule \"no secrets\", gitleaks id github-pat)");
  }

  @Test
  void aFileSentAsADeltaAgainstAnUpstreamBlobIsJudgedByItsOwnContent() throws Exception {
    StringBuilder big = new StringBuilder();
    for (int n = 0; n < 5000; n++) {
      big.append("row ").append(n).append(" of a table that upstream already has\n");
    }
    RevCommit first = commit(client, "table\n",
        Map.of("README.md", "base\n", "table.txt", big.toString()), base);
    TestRepos.setRef(client, MAIN, first);
    assertThat(status(push(PushRules.ALLOW_ALL, false, "refs/heads/main:refs/heads/main"), MAIN))
        .isEqualTo(RemoteRefUpdate.Status.OK);
    syncedCache();
    Transport.unregister(protocol);
    TestRepos.setRef(client, MAIN, commit(client, "one more row\n", Map.of("README.md",
        "base\n", "table.txt", big + "stripe = " + FakeSecrets.stripeLive() + "\n"), first));

    PushResult r = push(PushRules.ALLOW_ALL, false, "refs/heads/main:refs/heads/main");

    assertThat(message(r, MAIN)).isEqualTo("Control Center policy: table.txt:5001 holds a"
        + " Stripe API key (rule \"no secrets\", gitleaks id stripe-access-token)");
    assertThat(idOf(upstream, MAIN)).isEqualTo(first);
  }

  // ---- helpers

  /**
   * Pushes {@code next} to main as {@code pushed}, through a gateway minting at {@code upstream}
   * and auditing to {@code log}, and closes the push as the filter does: once the client has its
   * answer, after {@code onAnswer}.
   */
  private PushResult pushAsTheFilterDoes(RevCommit next, Push pushed, UpstreamAccess upstream,
      AuditLog log, Runnable onAnswer) throws Exception {
    TestRepos.setRef(client, MAIN, next);
    protocol = new TestProtocol<>(null, new GatewayReceivePackFactory(new GatewayServices(
        config(), upstream, log, approvals, PushMetrics.NONE, new Forwarder(10), caches,
        threads, held)));
    Transport.register(protocol);
    URIish uri = protocol.register(request(Map.of(Push.ATTRIBUTE, pushed)), cache);
    try (pushed; Transport t = Transport.open(client, uri)) {
      PushResult r = t.push(NullProgressMonitor.INSTANCE,
          t.findRemoteRefUpdatesFor(List.of(new RefSpec("refs/heads/main:refs/heads/main"))));
      onAnswer.run();
      return r;
    }
  }

  private PushResult push(PushRules rules, boolean atomic, String... refSpecs) throws Exception {
    GatewayReceivePackFactory factory = new GatewayReceivePackFactory(services());
    protocol = new TestProtocol<>(null, factory);
    Transport.register(protocol);
    // As a push whose command list the filter could not read: the hook judges every command.
    Push pushed = new Push(run(rules), REPO, java.util.Optional.empty(), access);
    URIish uri = protocol.register(request(Map.of(Push.ATTRIBUTE, pushed)), cache);
    try (pushed; Transport t = Transport.open(client, uri)) {
      t.setPushAtomic(atomic);
      List<RefSpec> specs = Arrays.stream(refSpecs).map(RefSpec::new).toList();
      return t.push(NullProgressMonitor.INSTANCE, t.findRemoteRefUpdatesFor(specs));
    }
  }

  /**
   * A push refused while its pack is unpacked, as the client sees the answer. JGit's in-process
   * transport closes the server's end of the pipe as soon as the answer is written, so a client
   * still writing the pack's last bytes can get "Pipe closed" instead of the answer (over HTTP,
   * JGit's servlet drains the body first). Such a push changed nothing; it is tried again.
   */
  private Throwable unpackRefusal(String... refSpecs) {
    for (int attempt = 1; ; attempt++) {
      Throwable thrown = catchThrowable(() -> push(PushRules.ALLOW_ALL, false, refSpecs));
      Transport.unregister(protocol);
      protocol = null;
      boolean cutOff = thrown != null && String.valueOf(thrown.getMessage()).endsWith("Pipe closed");
      if (!cutOff || attempt == 10) {
        return thrown;
      }
    }
  }

  /**
   * The cache as the next push's advertisement sees it. A push that landed is written to the
   * cache after its answer, and the sync before the next advertisement finds it in step: no fetch.
   */
  private Repository syncedCache() throws Exception {
    fetches.clear();
    caches.sync(REPO, access.url, RecordingUpstream.READ_TOKEN);
    assertThat(fetches).as("fetched in the sync after the push").containsExactly(false);
    return cache;
  }

  private GatewayServices services() {
    return new GatewayServices(config(), access, audit, approvals, PushMetrics.NONE,
        new Forwarder(10), caches, threads, held);
  }

  private GatewayConfig config() {
    return new GatewayConfig(GatewayConfig.GITHUB_HOST, dir.resolve("cache"), 1L << 30,
        Duration.ofSeconds(30), Duration.ofSeconds(10), Clock.fixed(NOW, ZoneOffset.UTC));
  }

  private RunContext run(PushRules rules) {
    return new RunContext("run-1", "ws-1", REPO, List.of(), rules, pushWorkflows, content, mode,
        boundaries);
  }

  /** A servlet request carrying what {@link GatewayFilter} leaves on it, and nothing else. */
  private static HttpServletRequest request(Map<String, Object> attributes) {
    Map<String, Object> attrs = new HashMap<>(attributes);
    return (HttpServletRequest) Proxy.newProxyInstance(PushHookTest.class.getClassLoader(),
        new Class<?>[] {HttpServletRequest.class}, (proxy, method, args) -> switch (method.getName()) {
          case "getAttribute" -> attrs.get((String) args[0]);
          case "hashCode" -> System.identityHashCode(proxy);
          case "equals" -> proxy == args[0];
          case "toString" -> "request" + attrs.keySet();
          default -> throw new UnsupportedOperationException(method.getName());
        });
  }

  private ObjectId clientBlob(String text) throws Exception {
    try (org.eclipse.jgit.lib.ObjectInserter ins = client.newObjectInserter()) {
      ObjectId id = ins.insert(org.eclipse.jgit.lib.Constants.OBJ_BLOB,
          text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      ins.flush();
      return id;
    }
  }

  /** A tree of entries of one mode, written as given: no check of names or order. */
  private ObjectId tree(FileMode mode, String name, ObjectId id, Object... more) throws Exception {
    org.eclipse.jgit.lib.TreeFormatter f = new org.eclipse.jgit.lib.TreeFormatter();
    f.append(name, mode, id);
    for (int i = 0; i < more.length; i += 2) {
      f.append((String) more[i], mode, (ObjectId) more[i + 1]);
    }
    try (org.eclipse.jgit.lib.ObjectInserter ins = client.newObjectInserter()) {
      ObjectId t = ins.insert(f);
      ins.flush();
      return t;
    }
  }

  private RevCommit commitOfTree(ObjectId tree) throws Exception {
    try (org.eclipse.jgit.lib.ObjectInserter ins = client.newObjectInserter();
        org.eclipse.jgit.revwalk.RevWalk walk = new org.eclipse.jgit.revwalk.RevWalk(client)) {
      org.eclipse.jgit.lib.CommitBuilder c = new org.eclipse.jgit.lib.CommitBuilder();
      org.eclipse.jgit.lib.PersonIdent who = new org.eclipse.jgit.lib.PersonIdent("Agent",
          "agent@example.invalid", NOW, ZoneOffset.UTC);
      c.setTreeId(tree);
      c.setParentIds(base);
      c.setAuthor(who);
      c.setCommitter(who);
      c.setMessage("tree\n");
      ObjectId id = ins.insert(c);
      ins.flush();
      return walk.parseCommit(id);
    }
  }

  /** A new commit pushed onto main under rules that allow everything is on main upstream. */
  private void assertAnAllowedPushToMainLands() throws Exception {
    RevCommit next = clientCommit("next", base);
    PushResult r = pushToMain(PushRules.ALLOW_ALL, next);

    assertThat(status(r, MAIN)).isEqualTo(RemoteRefUpdate.Status.OK);
    assertThat(idOf(upstream, MAIN)).isEqualTo(next);
  }

  /** A new commit on {@code base}, set as the client's main and feature branches. */
  private RevCommit nextOnMainAndFeature() throws Exception {
    RevCommit next = clientCommit("next", base);
    TestRepos.setRef(client, MAIN, next);
    TestRepos.setRef(client, "refs/heads/feature", next);
    return next;
  }

  /** Sets the client's main to {@code tip} and pushes main, not atomic. */
  private PushResult pushToMain(PushRules rules, ObjectId tip) throws Exception {
    TestRepos.setRef(client, MAIN, tip);
    return push(rules, false, "refs/heads/main:refs/heads/main");
  }

  private PushResult pushMainAndFeature(PushRules rules, boolean atomic) throws Exception {
    return push(rules, atomic, "refs/heads/main:refs/heads/main",
        "refs/heads/feature:refs/heads/feature");
  }

  private RevCommit clientCommit(String message, RevCommit parent) throws Exception {
    return commit(client, message + "\n", Map.of("README.md", message + "\n"), parent);
  }

  private static PushRules denyMain() {
    return PushRules.of(List.of(PushRule.of(MAIN, Decision.DENY, "push to main is denied")));
  }

  private static PushRules askMain() {
    return PushRules.of(List.of(PushRule.of(MAIN, Decision.ASK, "main needs a human")));
  }

  private static RemoteRefUpdate.Status status(PushResult r, String ref) {
    return r.getRemoteUpdate(ref).getStatus();
  }

  private static String message(PushResult r, String ref) {
    return r.getRemoteUpdate(ref).getMessage();
  }
}
