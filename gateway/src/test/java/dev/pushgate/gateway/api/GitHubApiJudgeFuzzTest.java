package dev.pushgate.gateway.api;

import static dev.pushgate.gateway.api.ApiJudgeFixture.STRICT;
import static dev.pushgate.gateway.api.ApiJudgeFixture.chat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Coverage-guided fuzzing of the GitHub API judge (docs/fuzzing.md): a call read from bytes
 * (byte 0 picks the method, byte 1 the host, then the path up to the first newline, then the
 * body) is judged without throwing, and no write outside the run's repositories is let through.
 * The seeds under {@code GitHubApiJudgeFuzzTestInputs/judgesEveryCallAndLetsNoWriteOutOfTheRun/}
 * are a REST write, a contents write and GraphQL mutations.
 */
class GitHubApiJudgeFuzzTest {
  private static final List<String> METHODS =
      List.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE");
  private static final List<String> HOSTS =
      List.of(ApiHosts.API, ApiHosts.UPLOADS, ApiJudgeFixture.GHES);
  private static final ApiJudge JUDGE = chat(STRICT + "push-workflows: ask\n");

  @FuzzTest(maxDuration = "2m")
  void judgesEveryCallAndLetsNoWriteOutOfTheRun(byte[] input) {
    if (input.length < 2) {
      return;
    }
    String method = METHODS.get((input[0] & 0xff) % METHODS.size());
    String host = HOSTS.get((input[1] & 0xff) % HOSTS.size());
    int newline = 2;
    while (newline < input.length && input[newline] != '\n') {
      newline++;
    }
    String path = new String(input, 2, newline - 2, StandardCharsets.ISO_8859_1);
    byte[] body = newline < input.length
        ? Arrays.copyOfRange(input, newline + 1, input.length) : new byte[0];
    ApiJudgeProperties.check(JUDGE, new ApiCall(method, host, path, "", "", body));
  }
}
