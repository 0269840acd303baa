package dev.pushgate.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class GitHubAppConfigTest {
  private static final Path KEY = Path.of("/etc/pushgate/app.pem");

  @Test
  void defaultsToGitHubDotCom() {
    GitHubAppConfig c = GitHubAppConfig.of("123456", KEY);

    assertThat(c.apiBaseUrl()).isEqualTo(URI.create("https://api.github.com"));
    assertThat(c.gitHost()).isEqualTo(URI.create("https://github.com"));
    assertThat(c.connectTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(c.readTimeout()).isEqualTo(Duration.ofSeconds(20));
    assertThat(c.callTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(c.retryDeadline()).isEqualTo(Duration.ofSeconds(60));
    assertThat(c.maxAttempts()).isEqualTo(4);
  }

  @Test
  void acceptsAClientIdAsAppId() {
    assertThat(GitHubAppConfig.of("Iv23liAbCdEf012345", KEY).appId()).isEqualTo("Iv23liAbCdEf012345");
  }

  @Test
  void acceptsEnterpriseServerAndDropsTrailingSlash() {
    GitHubAppConfig c = GitHubAppConfig.of("1", KEY)
        .withApiBaseUrl(URI.create("https://ghe.example.com/api/v3/"))
        .withGitHost(URI.create("https://ghe.example.com/"));

    assertThat(c.apiBaseUrl()).isEqualTo(URI.create("https://ghe.example.com/api/v3"));
    assertThat(c.gitHost()).isEqualTo(URI.create("https://ghe.example.com"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"http://127.0.0.1:8080/forge/api/v3", "http://localhost:9/x",
      "http://[::1]:8080/forge/api/v3"})
  void acceptsPlainHttpOnLoopback(String url) {
    assertThat(GitHubAppConfig.of("1", KEY).withApiBaseUrl(URI.create(url)).apiBaseUrl())
        .isEqualTo(URI.create(url));
  }

  @Test
  void refusesPlainHttpToAnyOtherHost() {
    assertThatThrownBy(() -> GitHubAppConfig.of("1", KEY)
        .withApiBaseUrl(URI.create("http://ghe.example.com/api/v3")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("apiBaseUrl must use https unless it is a loopback address (tokens travel on"
            + " it): \"http://ghe.example.com/api/v3\"");
  }

  @Test
  void refusesCredentialsInTheUrlWithoutEchoingThem() {
    assertThatThrownBy(() -> GitHubAppConfig.of("1", KEY)
        .withApiBaseUrl(URI.create("https://user:s3cret@ghe.example.com/api/v3")))
        .hasMessage("apiBaseUrl must not carry credentials");
  }

  @Test
  void refusesQueryAndNonHttpUrls() {
    assertThatThrownBy(() -> GitHubAppConfig.of("1", KEY)
        .withGitHost(URI.create("https://github.com/?x=1")))
        .hasMessage("gitHost must not have a query or a fragment: \"https://github.com/?x=1\"");
    assertThatThrownBy(() -> GitHubAppConfig.of("1", KEY)
        .withApiBaseUrl(URI.create("ftp://api.github.com")))
        .hasMessage("apiBaseUrl must be an http(s) URL: \"ftp://api.github.com\"");
    assertThatThrownBy(() -> GitHubAppConfig.of("1", KEY)
        .withApiBaseUrl(URI.create("api.github.com")))
        .hasMessage("apiBaseUrl must be an http(s) URL: \"api.github.com\"");
  }

  @Test
  void refusesAnAppIdThatIsNoId() {
    assertThatThrownBy(() -> GitHubAppConfig.of("12 34", KEY))
        .hasMessage("not a GitHub App ID or client ID: \"12 34\"");
    assertThatThrownBy(() -> GitHubAppConfig.of("", KEY))
        .hasMessage("not a GitHub App ID or client ID: \"\"");
    assertThatThrownBy(() -> GitHubAppConfig.of("1\n2", KEY))
        .hasMessage("not a GitHub App ID or client ID: \"1\\x0a2\"");
    assertThatThrownBy(() -> GitHubAppConfig.of(null, KEY))
        .hasMessage("not a GitHub App ID or client ID: (none)");
  }

  @Test
  void refusesUnusableTimeoutsAndRetries() {
    GitHubAppConfig c = GitHubAppConfig.of("1", KEY);
    assertThatThrownBy(() -> c.withTimeouts(Duration.ZERO, Duration.ofSeconds(1),
        Duration.ofSeconds(1)))
        .hasMessage("connectTimeout must be more than 0 and at most 1 hour: PT0S");
    assertThatThrownBy(() -> c.withRetries(Duration.ofHours(2), 3))
        .hasMessage("retryDeadline must be more than 0 and at most 1 hour: PT2H");
    assertThatThrownBy(() -> c.withRetries(Duration.ofSeconds(60), 0))
        .hasMessage("maxAttempts must be 1 to 10: 0");
  }
}
