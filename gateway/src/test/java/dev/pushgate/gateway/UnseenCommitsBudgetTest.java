package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.gateway.api.ApiCall;
import dev.pushgate.gateway.api.ApiHosts;
import dev.pushgate.gateway.api.ApiJudgement;
import dev.pushgate.gateway.api.GitHubApiJudge;
import dev.pushgate.policy.Decision;
import dev.pushgate.policy.Mode;
import dev.pushgate.policy.PushRules;
import dev.pushgate.policy.WorkspaceRules;
import dev.pushgate.types.RepoSlug;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.StoredConfig;
import org.eclipse.jgit.revwalk.RevCommit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A ref move through the API to commits the boundary never saw is judged with the push's budget:
 * the workflow walk of those commits asks it at every commit and tree entry, and once it is spent
 * the call is refused as not judged (nothing of it goes upstream), as a push of them is. The
 * commits are fetched from a real upstream into the gateway's cache, as in a run.
 */
class UnseenCommitsBudgetTest {
  private static final RepoSlug REPO = new RepoSlug("acme", "widget");

  @TempDir Path dir;
  private HttpUpstream http;
  private Repository upstream;
  private UpstreamCache cache;
  private RecordingUpstream access;
  private RevCommit unseen;

  @BeforeEach
  void upstreamWithCommitsNoRefReaches() throws Exception {
    http = new HttpUpstream(dir);
    upstream = TestRepos.bare(dir.resolve("upstream.git"));
    TestRepos.baseOnMainAndOld(upstream);
    // Thousands of files swapped in every commit: a walk of many steps, on no ref upstream,
    // served by id as GitHub serves any object of the repository.
    unseen = TestRepos.swappingHistory(upstream, 2_000, 20);
    StoredConfig config = upstream.getConfig();
    config.setBoolean("uploadpack", null, "allowanysha1inwant", true);
    config.save();
    access = new RecordingUpstream(http.url(dir.resolve("upstream.git")));
    cache = new UpstreamCache(dir.resolve("cache"), 10, PushMetrics.NONE);
  }

  @AfterEach
  void close() throws Exception {
    cache.close();
    upstream.close();
    http.close();
  }

  @Test
  void aRefMoveWhoseWorkflowWalkOutlivesTheBudgetIsRefusedAsNotJudged() throws Exception {
    // A clock that moves a millisecond each time the judgement looks at it: 1 s of budget is
    // about a thousand steps, whatever the machine's speed (ContentJudgeBudgetTest's way).
    AtomicLong looks = new AtomicLong();
    Supplier<JudgementBudget> budgets = () -> new JudgementBudget(Duration.ofSeconds(1),
        () -> false, () -> false, () -> looks.incrementAndGet() * 1_000_000L);

    ApiJudgement j = judge(budgets).judge(createRef());

    assertThat(j.decision()).isEqualTo(Decision.DENY);
    assertThat(j.reason()).isEqualTo("moving refs/heads/feature to " + unseen.name()
        + " is denied: its commits cannot be judged as a push's: the workflow files they change"
        + " could not be read within 1 s; nothing was changed, move the ref in smaller steps"
        + " (fewer new commits at a time)");
    // The walk stopped once the budget was spent, long before its 20 * 2,000 entries.
    assertThat(looks.get()).isLessThan(2 * 1_000L);
    assertThat(upstream.exactRef("refs/heads/feature")).as("nothing moved upstream").isNull();
    assertThat(http.requests).extracting(HttpUpstream.Seen::request)
        .noneMatch(r -> r.contains("receive-pack"));
  }

  @Test
  void theSameMoveWithinThePushsBudgetIsAllowed() throws Exception {
    ApiJudgement j = judge(() -> JudgementBudget.of(ContentJudge.BUDGET)).judge(createRef());

    assertThat(j.decision()).as(j.reason()).isEqualTo(Decision.ALLOW);
  }

  private GitHubApiJudge judge(Supplier<JudgementBudget> budgets) {
    RunContext run = new RunContext("run-1", "ws-1", REPO, List.of(), PushRules.ALLOW_ALL);
    return new GitHubApiJudge(WorkspaceRules.DEFAULT, Mode.CHAT, Set.of(), REPO, List.of(),
        ApiHosts.GITHUB_COM, repo -> Optional.of("main"),
        new UnseenCommitsFetched(cache, access, run, budgets));
  }

  /** {@code POST /git/refs}: a new branch at the unseen commits, as {@code gh api} sends it. */
  private ApiCall createRef() {
    String body = "{\"ref\":\"refs/heads/feature\",\"sha\":\"" + unseen.name() + "\"}";
    return new ApiCall("POST", ApiHosts.API, "/repos/acme/widget/git/refs", "",
        "application/json", body.getBytes(StandardCharsets.UTF_8));
  }
}
