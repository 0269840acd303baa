package dev.pushgate.gitconfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RunGitConfigTest {
  private static final String CREDENTIAL = "pgr_secret_value";

  @Test
  void defaultsToGitHub() {
    RunGitConfig config = RunGitConfig.of("http://127.0.0.1:7070", CREDENTIAL);
    assertThat(config.gitHost()).isEqualTo(GitHost.GITHUB);
    assertThat(config.fetchBaseUrl()).isEmpty();
    assertThat(config.gatewayPushBase()).isEqualTo("http://127.0.0.1:7070/git/github.com/");
  }

  @Test
  void normalisesBaseUrlsAndHost() {
    RunGitConfig config = RunGitConfig.of("HTTP://LocalHost:7070/pg//", CREDENTIAL)
        .withGitHost("GHE.Example.com").withFetchBaseUrl("http://127.0.0.1:7070/forge");
    assertThat(config.gatewayBaseUrl()).isEqualTo("http://localhost:7070/pg");
    assertThat(config.gitHost()).isEqualTo(GitHost.of("https://ghe.example.com"));
    assertThat(config.fetchBaseUrl()).contains("http://127.0.0.1:7070/forge/");
  }

  @Test
  void neverShowsTheCredentialInToString() {
    String text = RunGitConfig.of("http://127.0.0.1:7070", CREDENTIAL).toString();
    assertThat(text).doesNotContain(CREDENTIAL).contains("runCredential=***");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', quoteCharacter = '\'', textBlock = """
      ''                              | gateway base URL is missing
      ftp://127.0.0.1                 | gateway base URL must start with http:// or https://: ftp://127.0.0.1
      http://                         | gateway base URL has no valid host: http://
      http://a b                      | gateway base URL has a forbidden character 0x20 at 8: http://a b
      http://127.0.0.1:7070/?x=1      | gateway base URL has a forbidden character 0x3f at 22: http://127.0.0.1:7070/?x=1
      http://127.0.0.1:7070/#f        | gateway base URL has a forbidden character 0x23 at 22: http://127.0.0.1:7070/#f
      http://127.0.0.1:99999          | gateway base URL has an invalid port: http://127.0.0.1:99999
      http://-bad.host                | gateway base URL has no valid host: http://-bad.host
      http://127.0.0.1:7070/é         | gateway base URL has a forbidden character 0xe9 at 22: http://127.0.0.1:7070/é
      """)
  void refusesABadGatewayUrl(String url, String message) {
    assertThatThrownBy(() -> RunGitConfig.of(url, CREDENTIAL))
        .isInstanceOf(IllegalArgumentException.class).hasMessage(message);
  }

  @Test
  void refusesUserInfoInAUrlWithoutEchoingIt() {
    assertThatThrownBy(() -> RunGitConfig.of("http://u:hunter2@127.0.0.1:7070", CREDENTIAL))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("gateway base URL must not carry user info");
  }

  @Test
  void refusesAControlCharacterInAUrlShowingItEscaped() {
    assertThatThrownBy(() -> RunGitConfig.of("http://127.0.0.1/a\nb", CREDENTIAL))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("gateway base URL has a forbidden character 0x0a at 18: "
            + "http://127.0.0.1/a\\x0ab");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', quoteCharacter = '\'', textBlock = """
      github.com:443   | git host must be a DNS name such as github.com: github.com:443
      git@github.com   | git host must be a DNS name such as github.com: git@github.com
      -github.com      | git host must be a DNS name such as github.com: -github.com
      github..com      | git host must be a DNS name such as github.com: github..com
      ''               | git host is missing
      """)
  void refusesABadGitHost(String host, String message) {
    assertThatThrownBy(() -> RunGitConfig.of("http://127.0.0.1:7070", CREDENTIAL)
        .withGitHost(host)).isInstanceOf(IllegalArgumentException.class).hasMessage(message);
  }

  @Test
  void refusesACredentialThatCannotBeAHeaderValueWithoutEchoingIt() {
    assertThatThrownBy(() -> RunGitConfig.of("http://127.0.0.1:7070", "abc\r\nX-Evil: 1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("run credential must be visible ASCII; found 0x0d at index 3");
    assertThatThrownBy(() -> RunGitConfig.of("http://127.0.0.1:7070", "secret with space"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("run credential must be visible ASCII; found 0x20 at index 6");
    assertThatThrownBy(() -> RunGitConfig.of("http://127.0.0.1:7070", ""))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("run credential is empty");
    assertThatThrownBy(() -> RunGitConfig.of("http://127.0.0.1:7070", "x".repeat(4097)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("run credential is longer than 4096 characters");
  }

  @Test
  void refusesAForgeThatOverlapsTheGatewayPath() {
    RunGitConfig config = RunGitConfig.of("http://127.0.0.1:7070", CREDENTIAL);
    assertThatThrownBy(() -> config.withFetchBaseUrl("http://127.0.0.1:7070/"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("fetch base URL http://127.0.0.1:7070/ overlaps the gateway's "
            + "http://127.0.0.1:7070/git/; give the forge a path of its own");
    assertThatThrownBy(() -> config.withFetchBaseUrl("http://127.0.0.1:7070/git/forge"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("fetch base URL http://127.0.0.1:7070/git/forge/ overlaps");
    assertThat(config.withFetchBaseUrl("http://127.0.0.1:7070/gitforge").fetchBaseUrl())
        .contains("http://127.0.0.1:7070/gitforge/");
  }

  @Test
  void requiresEveryPart() {
    assertThatThrownBy(() -> new RunGitConfig("http://h", GitHost.GITHUB, CREDENTIAL, null))
        .isInstanceOf(NullPointerException.class).hasMessage("fetchBaseUrl");
    assertThatThrownBy(() -> new RunGitConfig("http://h", null, CREDENTIAL, Optional.empty()))
        .isInstanceOf(NullPointerException.class).hasMessage("gitHost");
  }
}
