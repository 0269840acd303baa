package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.pushgate.gateway.api.ApiCall;
import dev.pushgate.gateway.api.ApiHosts;
import dev.pushgate.gateway.api.ApiJudgement;
import dev.pushgate.gateway.api.GitHubApiJudge;
import dev.pushgate.policy.Decision;
import dev.pushgate.policy.Mode;
import dev.pushgate.policy.PushRules;
import dev.pushgate.policy.WorkspaceRules;
import dev.pushgate.types.RepoSlug;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The API door to {@code SymrefPushMovesNoDeniedRefTest}'s effect: a REST write naming one of upstream's
 * symbolic branches is judged as the push path judges it, by the gateway's one list of
 * upstream's symrefs (read here from upstream, as no git request synced the repository) and its
 * one judge of them.
 */
class ApiWriteToUpstreamSymrefTest {
  private static final RepoSlug REPO = new RepoSlug("acme", "widget");
  private static final String MAIN = "1111111111111111111111111111111111111111";

  @TempDir Path dir;
  private HttpServer upstream;
  private final List<String> seen = new CopyOnWriteArrayList<>();
  private UpstreamCache cache;
  private GitHubApiJudge judge;

  @BeforeEach
  void upstreamWithAnAliasOfMain() throws Exception {
    upstream = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    upstream.createContext("/", exchange -> {
      seen.add(exchange.getRequestMethod() + " " + exchange.getRequestURI() + " "
          + exchange.getRequestHeaders().getFirst("Git-Protocol"));
      exchange.getRequestBody().readAllBytes();
      byte[] body = (pkt(MAIN + " HEAD symref-target:refs/heads/main\n")
          + pkt(MAIN + " refs/heads/alias symref-target:refs/heads/main\n")
          + pkt(MAIN + " refs/heads/main\n") + "0000").getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", UpstreamHttp.UPLOAD_PACK_RESULT);
      exchange.sendResponseHeaders(200, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    upstream.start();
    String url = "http://127.0.0.1:" + upstream.getAddress().getPort() + "/acme/widget.git";
    cache = new UpstreamCache(dir.resolve("cache"), 10, PushMetrics.NONE);
    RunContext run = new RunContext("run-1", "ws-1", REPO, List.of(), PushRules.ALLOW_ALL);
    judge = new GitHubApiJudge(WorkspaceRules.parse("""
        push:
          - refs: refs/heads/main
            decision: deny
            reason: main is written by people
        """), Mode.CHAT, Set.of(), REPO, List.of(), ApiHosts.GITHUB_COM,
        repo -> Optional.of("main"),
        new UnseenCommitsFetched(cache, new RecordingUpstream(url), run));
  }

  @AfterEach
  void stop() throws Exception {
    cache.close();
    upstream.stop(0);
  }

  @Test
  void aContentsWriteOnASymbolicBranchIsJudgedAsAWriteOfItsTarget() {
    String body = "{\"message\":\"m\",\"content\":\"eA==\",\"branch\":\"alias\"}";
    ApiJudgement j = judge.judge(new ApiCall("PUT", ApiHosts.API,
        "/repos/acme/widget/contents/x.txt", "", "application/json",
        body.getBytes(StandardCharsets.UTF_8)));

    assertThat(j.decision()).isEqualTo(Decision.DENY);
    assertThat(j.reason()).contains("refs/heads/alias is a symbolic ref upstream to"
        + " refs/heads/main, which this push would move: main is written by people");
    assertThat(seen).containsExactly("POST /acme/widget.git/git-upload-pack version=2");
  }

  @Test
  void deletingASymbolicBranchThroughTheApiIsDenied() {
    ApiJudgement j = judge.judge(new ApiCall("DELETE", ApiHosts.API,
        "/repos/acme/widget/git/refs/heads/alias", "", null, new byte[0]));

    assertThat(j.decision()).isEqualTo(Decision.DENY);
    assertThat(j.reason()).contains("deleting refs/heads/alias is denied");
  }

  @Test
  void aWriteOfAnOrdinaryBranchIsJudgedByItsNameAsBefore() {
    ApiJudgement j = judge.judge(new ApiCall("DELETE", ApiHosts.API,
        "/repos/acme/widget/git/refs/heads/feature", "", null, new byte[0]));

    assertThat(j.decision()).as(j.reason()).isEqualTo(Decision.ALLOW);
  }

  private static String pkt(String payload) {
    return String.format("%04x", payload.getBytes(StandardCharsets.UTF_8).length + 4) + payload;
  }
}
