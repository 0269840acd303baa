package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.types.RepoSlug;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** How the gateway reads the repository off a request path (already percent-decoded by Jetty). */
class GatewayFilterTest {
  @TempDir Path dir;

  private GatewayFilter filter(String gitHost) {
    GatewayConfig config = new GatewayConfig(gitHost, dir, 1024, Duration.ofSeconds(5),
        Duration.ofSeconds(5), Clock.systemUTC());
    return new GatewayFilter(new GatewayServices(config, null, null, null, PushMetrics.NONE,
        new Forwarder(5), new UpstreamCache(dir, 5, PushMetrics.NONE), new GatewayThreads(),
        null), RunAuthenticator.NONE);
  }

  private Optional<RepoSlug> repositoryOf(String path) {
    return filter(GatewayConfig.GITHUB_HOST).repositoryOf(path);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "/github.com/acme/widget.git/info/refs",
      "/github.com/acme/widget.git/git-receive-pack",
      "/github.com/acme/widget.git/git-upload-pack",
      "/github.com/acme/widget/info/refs",
      "/github.com/acme/widget/git-receive-pack"})
  void readsTheRepositoryWithOrWithoutDotGit(String path) {
    assertThat(repositoryOf(path)).contains(new RepoSlug("acme", "widget"));
  }

  @Test
  void keepsDotsDashesAndUnderscoresOfARealName() {
    assertThat(repositoryOf("/github.com/my-org/my_repo.v2.git/info/refs"))
        .contains(new RepoSlug("my-org", "my_repo.v2"));
  }

  @Test
  void readsTheConfiguredHostWithAPort() {
    assertThat(filter("forge.local:8080").repositoryOf("/forge.local:8080/acme/widget.git/info/refs"))
        .contains(new RepoSlug("acme", "widget"));
  }

  @Test
  void readsTheHostWithoutRegardToCaseAsDnsDoes() {
    assertThat(repositoryOf("/GitHub.COM/acme/widget.git/info/refs"))
        .contains(new RepoSlug("acme", "widget"));
    assertThat(filter("ghe.example.com").repositoryOf("/GHE.example.com/acme/widget.git/info/refs"))
        .contains(new RepoSlug("acme", "widget"));
    assertThat(filter("ghe.example.com").repositoryOf("/github.com/acme/widget.git/info/refs"))
        .isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {
      // dot segments, as they arrive once %2e%2e has been decoded
      "/github.com/../widget.git/info/refs",
      "/github.com/acme/...git/info/refs",
      "/github.com/acme/..git/info/refs",
      "/github.com/acme/../info/refs",
      "/github.com/acme/./info/refs",
      "/github.com/../../etc/passwd/info/refs",
      "/github.com/acme/../../other/widget.git/info/refs",
      // still encoded (double-encoded on the wire)
      "/github.com/acme/%2e%2e.git/info/refs",
      "/github.com/acme/%2fwidget.git/info/refs",
      // backslashes
      "/github.com/acme\\evil/widget.git/info/refs",
      "/github.com/acme/..\\widget.git/info/refs",
      "/github.com/acme/wid\\get.git/info/refs",
      // empty parts
      "/github.com//widget.git/info/refs",
      "/github.com/acme//info/refs",
      "/github.com/acme/.git/info/refs",
      "/github.com/acme/.git.git/info/refs",
      "/github.com///info/refs",
      "/github.com/info/refs",
      // extra segments
      "/github.com/acme/widget/extra.git/info/refs",
      "/github.com/acme/team/widget.git/git-receive-pack",
      "/github.com/acme/widget.git/info/refs/info/refs",
      // no smart-HTTP suffix, or another one
      "/github.com/acme/widget.git",
      "/github.com/acme/widget.git/",
      "/github.com/acme/widget.git/HEAD",
      "/github.com/acme/widget.git/objects/info/packs",
      "/github.com/acme/widget.git/info/refs/",
      "/github.com/acme/widget.git/git-receive-pack/",
      // wrong host
      "/gitlab.com/acme/widget.git/info/refs",
      "/github.com.evil.example/acme/widget.git/info/refs",
      "/github.comacme/widget.git/info/refs",
      "/github.co/acme/widget.git/info/refs",
      "/github.com",
      "/github.com/",
      "/acme/widget.git/info/refs",
      "github.com/acme/widget.git/info/refs",
      // control characters and spaces
      "/github.com/acme/wid\nget.git/info/refs",
      "/github.com/ac\u0000me/widget.git/info/refs",
      "/github.com/acme/wid get.git/info/refs",
      // not names GitHub gives
      "/github.com/-acme/widget.git/info/refs",
      "/github.com/acme/wïdget.git/info/refs",
      "",
      "/"})
  void refusesEveryMalformedPath(String path) {
    assertThat(repositoryOf(path)).isEmpty();
  }

  @Test
  void refusesNoPathAtAll() {
    assertThat(repositoryOf(null)).isEmpty();
  }
}
