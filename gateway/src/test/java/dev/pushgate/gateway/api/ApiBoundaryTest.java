package dev.pushgate.gateway.api;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.pushgate.gateway.ApprovalQuestion;
import dev.pushgate.gateway.Approvals;
import dev.pushgate.gateway.RefusalCode;
import dev.pushgate.gateway.api.OneRunBoundary.Answer;
import dev.pushgate.policy.Decision;
import dev.pushgate.testkit.Wait;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ApiBoundaryTest {
  private static final String READ_TOKEN = "ghs_REALreadTOKEN000000000000000000000";
  private static final String WRITE_TOKEN = "ghs_REALwriteTOKEN00000000000000000000";

  private WireMockServer github;
  private RunCa ca;
  private OneRunBoundary boundary;
  private final String sentinel = ApiSentinel.newValue();
  private final List<ApiRecord> audited = new ArrayList<>();
  private final List<ApprovalQuestion> asked = new ArrayList<>();
  private AtomicInteger revoked;
  private final AtomicReference<ApiJudge> judge = new AtomicReference<>();
  private final AtomicReference<Approvals> approvals = new AtomicReference<>(Approvals.NONE);

  @BeforeEach
  void start() throws IOException {
    github = StubGitHub.answeringAll(aResponse().withStatus(200)
        .withHeader("Content-Type", "application/json").withHeader("X-GitHub-Request-Id", "abc")
        .withBody("{\"ok\":true}"));
    ca = RunCa.create("run-1", ApiUpstream.of(URI.create("https://api.github.com")).hostNames(),
        Duration.ofHours(1));
    CountingTokens tokens = new CountingTokens(READ_TOKEN, WRITE_TOKEN);
    revoked = tokens.revoked;
    ApiUpstream upstream = StubGitHub.upstream(github);
    boundary = OneRunBoundary.start(ca,
        new ApiBoundary.RunApi("run-1", "ws-1", ApiSentinel.of(sentinel),
            call -> judge.get().judge(call), tokens),
        new ApiBoundary.Shared(upstream, (q, progress) -> {
          asked.add(q);
          return approvals.get().ask(q, progress);
        }, records -> audited.addAll(records), Clock.systemUTC()));
    judge.set(call -> judgement(call.method().equals("GET") ? Decision.ALLOW : Decision.DENY,
        "write-tracker", "commenting is denied in chat mode", false));
  }

  @AfterEach
  void stop() {
    boundary.close();
    github.stop();
  }

  @Test
  void anAllowedReadGoesUpstreamWithTheReadTokenInTheSentinelsPlace() throws Exception {
    Answer a = call("GET", "api.github.com", "/repos/acme/app/pulls?state=open",
        "token " + sentinel, "");
    assertThat(a.status()).isEqualTo(200);
    assertThat(a.body()).isEqualTo("{\"ok\":true}");
    assertThat(a.headers()).containsIgnoringCase("X-GitHub-Request-Id: abc");
    LoggedRequest seen = github.findAll(anyRequestedFor(anyUrl())).get(0);
    assertThat(seen.getUrl()).isEqualTo("/repos/acme/app/pulls?state=open");
    assertThat(seen.getHeader("Authorization")).isEqualTo("token " + READ_TOKEN);
    assertThat(seen.toString()).doesNotContain(sentinel);
    assertThat(a.raw()).doesNotContain(READ_TOKEN).doesNotContain(sentinel);
    assertThat(audited).singleElement().satisfies(r -> {
      assertThat(r.decision()).isEqualTo("allowed");
      assertThat(r.method()).isEqualTo("GET");
      assertThat(r.path()).isEqualTo("/repos/acme/app/pulls");
      assertThat(r.toString()).doesNotContain(READ_TOKEN).doesNotContain(sentinel);
    });
  }

  /**
   * Over plain HTTP the JDK's client asked upstream to upgrade to h2c on every call (issue 33):
   * headers and a switch no caller wanted. A call goes as HTTP/1.1 on a kept-alive connection.
   */
  @Test
  void aPlainHttpUpstreamIsNotAskedToUpgradeOnEveryCall() throws Exception {
    for (int i = 0; i < 2; i++) {
      assertThat(call("GET", "api.github.com", "/repos/acme/app", "token " + sentinel, "")
          .status()).isEqualTo(200);
    }
    assertThat(github.findAll(anyRequestedFor(anyUrl()))).hasSize(2).allSatisfy(seen -> {
      assertThat(seen.containsHeader("Upgrade")).isFalse();
      assertThat(seen.containsHeader("HTTP2-Settings")).isFalse();
    });
  }

  @Test
  void bearerAndGitsBasicSpellingsOfTheSentinelAreAccepted() throws Exception {
    assertThat(call("GET", "api.github.com", "/user", "Bearer " + sentinel, "").status())
        .isEqualTo(200);
    String basic = Base64.getEncoder().encodeToString(
        ("x-access-token:" + sentinel).getBytes(StandardCharsets.UTF_8));
    assertThat(call("GET", "api.github.com", "/user", "Basic " + basic, "").status())
        .isEqualTo(200);
    github.verify(2, getRequestedFor(urlEqualTo("/user"))
        .withHeader("Authorization", equalTo("token " + READ_TOKEN)));
  }

  @Test
  void uploadsGoToTheUploadsBase() throws Exception {
    assertThat(call("GET", "uploads.github.com", "/repos/acme/app/releases/1/assets",
        "token " + sentinel, "").status()).isEqualTo(200);
    github.verify(getRequestedFor(urlEqualTo("/uploads/repos/acme/app/releases/1/assets")));
  }

  @Test
  void withoutTheSentinelNothingGoesUpstream() throws Exception {
    for (String auth : List.of("", "token " + READ_TOKEN, "token " + sentinel + "x",
        "Basic !!!", "Bearer")) {
      Answer a = call("GET", "api.github.com", "/user", auth, "");
      assertThat(a.status()).as(auth).isEqualTo(401);
      assertThat(a.body()).contains("\"message\":\"Bad credentials")
          .contains("\"documentation_url\"");
    }
    assertThat(github.findAll(anyRequestedFor(anyUrl()))).isEmpty();
    assertThat(audited).isEmpty();
  }

  @Test
  void aDeniedCallIsRefusedInGitHubsShapeAndAudited() throws Exception {
    Answer a = call("POST", "api.github.com", "/repos/acme/app/issues/1/comments",
        "token " + sentinel, "{\"body\":\"hi\"}");
    assertThat(a.status()).isEqualTo(403);
    assertThat(a.body()).isEqualTo("{\"message\":\"Control Center policy: commenting is denied in"
        + " chat mode\",\"documentation_url\":\"" + ApiBoundary.DOCS + "\"}\n");
    assertThat(github.findAll(anyRequestedFor(anyUrl()))).isEmpty();
    assertThat(audited).singleElement().satisfies(r -> {
      assertThat(r.decision()).isEqualTo("denied");
      assertThat(r.kind()).isEqualTo("write-tracker");
      assertThat(r.repository()).isEqualTo("acme/app");
      assertThat(r.status()).isZero();
      assertThat(r.toString()).doesNotContain("hi\"");
    });
  }

  @Test
  void theJudgeReadsTheWholeBody() throws Exception {
    AtomicReference<ApiCall> seen = new AtomicReference<>();
    judge.set(call -> {
      seen.set(call);
      return judgement(Decision.DENY, "open-pull-request", "no", false);
    });
    call("POST", "api.github.com", "/repos/acme/app/pulls", "token " + sentinel,
        "{\"title\":\"x\"}");
    assertThat(new String(seen.get().body(), StandardCharsets.UTF_8)).isEqualTo("{\"title\":\"x\"}");
    assertThat(seen.get().host()).isEqualTo("api.github.com");
    assertThat(seen.get().path()).isEqualTo("/repos/acme/app/pulls");
  }

  @Test
  void anAskIsPutToTheApproversAndTheirRefusalIsTheAnswer() throws Exception {
    judge.set(call -> judgement(Decision.ASK, "open-pull-request",
        "opening a pull request asks in chat mode", false));
    approvals.set((q, p) -> Approvals.ApprovalAnswer.refuse(RefusalCode.APPROVAL_DENIED,
        "denied by alice: not today"));
    Answer a = call("POST", "api.github.com", "/repos/acme/app/pulls", "token " + sentinel,
        "{}");
    assertThat(a.status()).isEqualTo(403);
    assertThat(a.body()).contains("Control Center policy: denied by alice: not today");
    assertThat(asked).singleElement().satisfies(q -> {
      assertThat(q.kind()).isEqualTo("api open-pull-request");
      assertThat(q.repository()).isEqualTo("acme/app");
      assertThat(q.reason()).isEqualTo("opening a pull request asks in chat mode");
      assertThat(q.commitSummaries()).containsExactly("POST api.github.com/repos/acme/app/pulls",
          "needs approval: open-pull-request #1 on acme/app");
      assertThat(q.action()).isEqualTo("open-pull-request");
    });
    assertThat(github.findAll(anyRequestedFor(anyUrl()))).isEmpty();
    assertThat(audited).singleElement().extracting(ApiRecord::decision).isEqualTo("asked");
  }

  @Test
  void oneQuestionListsEveryActionOfTheCallAndItsClassNotPush() throws Exception {
    judge.set(call -> new ApiJudgement(List.of(
        new ApiJudgement.ApiAction("open-pull-request", "acme/app", "createPullRequest",
            Decision.ASK, "opening a pull request needs approval", "title \"Add x\""),
        new ApiJudgement.ApiAction("write-tracker", "acme/app", "addComment", Decision.ASK,
            "writing to the tracker needs approval", "body \"first\""),
        new ApiJudgement.ApiAction("write-tracker", "acme/app", "addComment", Decision.ALLOW,
            "allowed", "body \"second\"")), false));
    approvals.set((q, p) -> Approvals.ApprovalAnswer.refuse(RefusalCode.APPROVAL_DENIED,
        "denied by alice"));

    Answer a = call("POST", "api.github.com", "/graphql", "token " + sentinel, "{}");

    assertThat(a.status()).isEqualTo(403);
    assertThat(asked).singleElement().satisfies(q -> {
      assertThat(q.action()).isEqualTo("open-pull-request, write-tracker");
      assertThat(q.kind()).isEqualTo("api open-pull-request, write-tracker");
      assertThat(q.repository()).isEqualTo("acme/app");
      assertThat(q.ref()).isEqualTo("2 actions: createPullRequest, addComment");
      assertThat(q.commitSummaries()).containsExactly("POST api.github.com/graphql",
          "needs approval: open-pull-request createPullRequest on acme/app: title \"Add x\"",
          "needs approval: write-tracker addComment on acme/app: body \"first\"",
          "allowed by its rule: write-tracker addComment on acme/app: body \"second\"");
    });
    assertThat(github.findAll(anyRequestedFor(anyUrl()))).isEmpty();
  }

  @Test
  void aCallAskingAboutTooManyThingsAtOnceIsRefusedUnasked() throws Exception {
    List<ApiJudgement.ApiAction> many = new java.util.ArrayList<>();
    for (int i = 0; i <= ApiBoundary.MAX_ASKED_ACTIONS; i++) {
      many.add(new ApiJudgement.ApiAction("write-tracker", "acme/app", "c" + i, Decision.ASK,
          "asks"));
    }
    judge.set(call -> new ApiJudgement(many, false));

    Answer a = call("POST", "api.github.com", "/graphql", "token " + sentinel, "{}");

    assertThat(a.status()).isEqualTo(403);
    assertThat(a.body()).contains("the call does 11 things at once and needs approval; pushgate"
        + " puts at most 10 in one question: split the call");
    assertThat(asked).isEmpty();
    assertThat(github.findAll(anyRequestedFor(anyUrl()))).isEmpty();
  }

  @Test
  void anApprovedAskGoesUpstream() throws Exception {
    judge.set(call -> judgement(Decision.ASK, "open-pull-request", "asks", false));
    approvals.set((q, p) -> Approvals.ApprovalAnswer.allow("alice"));
    assertThat(call("POST", "api.github.com", "/repos/acme/app/pulls", "token " + sentinel,
        "{}").status()).isEqualTo(200);
    assertThat(github.findAll(anyRequestedFor(anyUrl()))).hasSize(1);
  }

  @Test
  void aContentsWriteGoesWithAWriteTokenRevokedAfter() throws Exception {
    judge.set(call -> judgement(Decision.ALLOW, "push", "allowed", true));
    assertThat(call("PUT", "api.github.com", "/repos/acme/app/contents/a.txt",
        "token " + sentinel, "{}").status()).isEqualTo(200);
    assertThat(github.findAll(anyRequestedFor(anyUrl())).get(0).getHeader("Authorization"))
        .isEqualTo("token " + WRITE_TOKEN);
    // Revoked once the answer has been sent on: after the client has it, not before.
    Wait.until(Duration.ofSeconds(10), "the write token to be revoked", () -> revoked.get() == 1);
  }

  @Test
  void aWriteThatGetsNoTokenIsAuditedAsNotSent() throws Exception {
    // A write naming no repository: no token is minted, and the record must not say it was sent.
    judge.set(call -> new ApiJudgement(List.of(new ApiJudgement.ApiAction("push", null,
        "updateRef", Decision.ALLOW, "allowed")), true));
    Answer a = call("POST", "api.github.com", "/graphql", "token " + sentinel, "{}");
    assertThat(a.status()).isEqualTo(403);
    assertThat(a.body()).contains("a write names no repository");
    assertThat(audited).singleElement().satisfies(r -> {
      assertThat(r.status()).as("not forwarded").isZero();
      assertThat(r.decision()).isEqualTo("denied");
    });
    assertThat(github.findAll(anyRequestedFor(anyUrl()))).isEmpty();
  }

  @Test
  void aTargetTheClientCannotSendIsRefusedAndAuditedAsNotSent() throws Exception {
    judge.set(call -> judgement(Decision.ALLOW, "read", "reads", false));
    // Jetty takes a raw '|' in the query, java.net.URI does not: before, the call failed with a
    // 502 after nothing was recorded; now it is refused and recorded as not sent.
    Answer a = call("GET", "api.github.com", "/repos/acme/app/pulls?q=a|b", "token " + sentinel, "");
    assertThat(a.status()).isEqualTo(400);
    assertThat(a.body()).contains("a header or target pushgate cannot send on");
    assertThat(audited).singleElement().satisfies(r -> assertThat(r.status()).isZero());
    assertThat(github.findAll(anyRequestedFor(anyUrl()))).isEmpty();
  }

  @Test
  void anOversizedBodyIsRefusedUnjudged() throws Exception {
    judge.set(call -> {
      throw new AssertionError("judged");
    });
    String big = "x".repeat(ApiBoundary.MAX_BODY + 1);
    Answer a = call("POST", "api.github.com", "/graphql", "token " + sentinel, big);
    assertThat(a.status()).isEqualTo(413);
    assertThat(a.body()).contains("\"message\"");
    assertThat(github.findAll(anyRequestedFor(anyUrl()))).isEmpty();
  }

  @Test
  void aCallNobodyCanAuditIsRefused() throws Exception {
    readsAllowedAuditedBy(records -> {
      throw new dev.pushgate.gateway.AuditLog.AuditException("down", null);
    });
    assertThat(call("GET", "api.github.com", "/user", "token " + sentinel, "").status())
        .isEqualTo(503);
    assertThat(github.findAll(anyRequestedFor(anyUrl()))).isEmpty();
  }

  /** The promise the audit's group commit keeps: the record is written before the call goes. */
  @Test
  void anAllowedCallIsAuditedBeforeAnythingGoesUpstream() throws Exception {
    List<Integer> upstreamCallsWhenAudited = new ArrayList<>();
    readsAllowedAuditedBy(records -> upstreamCallsWhenAudited.add(
        github.findAll(anyRequestedFor(anyUrl())).size()));
    assertThat(call("GET", "api.github.com", "/user", "token " + sentinel, "").status())
        .isEqualTo(200);
    assertThat(upstreamCallsWhenAudited).containsExactly(0);
    assertThat(github.findAll(anyRequestedFor(anyUrl()))).hasSize(1);
  }

  /** Restarts the boundary: a judge allowing every call, a read token, {@code audit}. */
  private void readsAllowedAuditedBy(ApiAudit audit) throws IOException {
    boundary.close();
    boundary = OneRunBoundary.start(ca,
        new ApiBoundary.RunApi("run-1", "ws-1", ApiSentinel.of(sentinel),
            call -> judgement(Decision.ALLOW, "read", "reads", false),
            new ReadOnlyTokens(READ_TOKEN)),
        new ApiBoundary.Shared(ApiUpstream.of(URI.create(github.baseUrl())), Approvals.NONE,
            audit, Clock.systemUTC()));
  }

  @Test
  void theTokenNeverEchoesEvenWhenUpstreamRepeatsTheRequest() throws Exception {
    // An upstream that reflects what it was sent (a stand-in might): the Authorization we sent
    // is upstream's to see, but what the run gets back must still be GitHub's answer only.
    github.resetAll();
    github.stubFor(any(anyUrl()).willReturn(aResponse().withStatus(200).withBody("plain")));
    Answer a = call("GET", "api.github.com", "/user", "token " + sentinel, "");
    assertThat(a.raw()).doesNotContain(READ_TOKEN);
    assertThat(a.headers().toLowerCase()).doesNotContain("authorization");
  }

  private static ApiJudgement judgement(Decision d, String kind, String reason, boolean write) {
    return new ApiJudgement(List.of(new ApiJudgement.ApiAction(kind, "acme/app", "#1", d, reason)),
        write);
  }

  private Answer call(String method, String host, String target, String authorization,
      String body) throws Exception {
    return boundary.call(method, host, target, authorization, body);
  }
}
