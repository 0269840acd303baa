package dev.pushgate.gateway.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.pushgate.gateway.api.GitHubApiDescription.Operation;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The routes whose answers the boundary reads for download links ({@link
 * DownloadLinks#carriesLinks}) are those GitHub's own description gives a {@code download_url}:
 * a route GitHub adds with one fails here until it is listed, rather than its links reaching the
 * run unread (docs/github-api.md, "Which answers are read").
 */
class DownloadLinksDescriptionTest {
  private static final String REPOSITORY_ROUTE = "GET /repos/{owner}/{repo}/";

  @BeforeEach
  void descriptionIsInstalled() {
    boolean present = List.of(GitHubApiDescription.Rest.values()).stream()
        .allMatch(r -> Files.isRegularFile(r.file()));
    if (!present && "true".equals(System.getenv("CI"))) {
      fail("GitHub's API description is not in " + GitHubApiDescription.directory()
          + ": .ci/run installs @octokit/openapi there with npm");
    }
    Assumptions.assumeTrue(present, "GitHub's API description is not installed (see .ci/run)");
  }

  @ParameterizedTest
  @EnumSource(GitHubApiDescription.Rest.class)
  void everyRepositoryRouteWhoseAnswerHasADownloadUrlIsRead(GitHubApiDescription.Rest product)
      throws IOException {
    List<Operation> withLinks = GitHubApiDescription.getsAnsweringWith(product, "download_url")
        .stream().filter(op -> op.name().startsWith(REPOSITORY_ROUTE)).toList();
    // A walk that found nothing would make this test pass whatever carriesLinks says.
    assertThat(withLinks).extracting(Operation::name)
        .contains(REPOSITORY_ROUTE + "contents/{path}", REPOSITORY_ROUTE + "license");
    assertThat(withLinks).allSatisfy(op ->
        assertThat(DownloadLinks.carriesLinks(op.call().path())).as(op.name() + " at "
            + op.call().path() + ": its answer has a download_url; add it to"
            + " DownloadLinks.LINK_ROUTES").isTrue());
  }

  @Test
  void routesWhoseAnswersHaveNoDownloadUrlAreNotRead() {
    for (String path : List.of("/repos/o/r/issues/1", "/repos/o/r/pulls", "/repos/o/r",
        "/repos/o/r/issues/1/comments", "/repos/o/r/releases")) {
      assertThat(DownloadLinks.carriesLinks(path)).as(path).isFalse();
    }
  }
}
