package dev.pushgate.gateway.api;

import static dev.pushgate.gateway.api.ApiJudgeFixture.STRICT;
import static dev.pushgate.gateway.api.ApiJudgeFixture.chat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Random calls, seeded so a failure repeats: the judge never throws, and never lets a write
 * through outside the run's repositories ({@link ApiJudgeProperties}).
 */
class GitHubApiJudgeRandomTest {
  private static final List<String> METHODS =
      List.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "get", "");
  private static final List<String> HOSTS = List.of(ApiHosts.API, ApiHosts.UPLOADS,
      ApiJudgeFixture.GHES, "API.GITHUB.COM:443", "evil.test", "");
  private static final List<String> WORDS = List.of("repos", "acme", "widget", "ACME", "gadget",
      "evil", "pulls", "12", "merge", "reviews", "comments", "issues", "contents", "git", "refs",
      "heads", "main", "blobs", ".github", "workflows", "releases", "hooks", "update-branch",
      "%2F", "%2e%2e", "..", ";", "%25", "%", "%C3%A9", "é", "\\", " ", "graphql", "api", "v3",
      "");
  private static final List<String> BODIES = List.of("{}", "{\"branch\":\"main\"}",
      "{\"ref\":\"refs/heads/x\",\"sha\":\"a\"}", "{\"force\":true}",
      "{\"query\":\"mutation { mergePullRequest(input: {}) { x } }\"}",
      "{\"query\":\"mutation($i: I) { createCommitOnBranch(input: $i) { x } }\",\"variables\":"
          + "{\"i\":{\"branch\":{\"repositoryNameWithOwner\":\"acme/widget\",\"branchName\":"
          + "\"f\"},\"fileChanges\":{\"additions\":[{\"path\":\".github/workflows/a\"}]}}}}",
      "{\"query\":\"{ repository(owner: \\\"acme\\\", name: \\\"widget\\\") { id } }\"}",
      "{\"query\":\"query A { viewer { id } } mutation B { addComment(input: {}) { x } }\","
          + "\"operationName\":\"B\"}");

  @Test
  void randomCallsAreJudgedWithoutThrowingAndAllowNoWriteOutsideTheRun() {
    Random random = new Random(16);
    List<ApiJudge> judges = List.of(chat(""), chat(STRICT), chat("push-workflows: allow"),
        ApiJudgeFixture.judge("", dev.pushgate.policy.Mode.PLAN));
    for (int i = 0; i < 20_000; i++) {
      ApiCall call = new ApiCall(pick(random, METHODS), pick(random, HOSTS), path(random),
          random.nextInt(8) == 0 ? "a=b" : "", "application/json", body(random));
      ApiJudgeProperties.check(judges.get(random.nextInt(judges.size())), call);
    }
  }

  private static String path(Random random) {
    if (random.nextInt(10) == 0) {
      return new String(bytes(random, 40), StandardCharsets.ISO_8859_1);
    }
    StringBuilder p = new StringBuilder();
    int n = random.nextInt(8);
    for (int i = 0; i < n; i++) {
      p.append('/').append(pick(random, WORDS));
    }
    if (random.nextInt(6) == 0) {
      p.append('/');
    }
    return p.length() == 0 ? "/" : p.toString();
  }

  private static byte[] body(Random random) {
    byte[] b = pick(random, BODIES).getBytes(StandardCharsets.UTF_8);
    switch (random.nextInt(4)) {
      case 0 -> {
        return bytes(random, 64);
      }
      case 1 -> {
        // A valid body with one byte changed: close to what the judge reads.
        b[random.nextInt(b.length)] = (byte) random.nextInt(256);
        return b;
      }
      default -> {
        return b;
      }
    }
  }

  private static byte[] bytes(Random random, int max) {
    byte[] b = new byte[random.nextInt(max + 1)];
    random.nextBytes(b);
    return b;
  }

  private static <T> T pick(Random random, List<T> list) {
    return list.get(random.nextInt(list.size()));
  }
}
