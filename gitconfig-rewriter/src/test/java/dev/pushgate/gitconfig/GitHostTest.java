package dev.pushgate.gitconfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class GitHostTest {
  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      github.com                         | github.com           | https://github.com
      GitHub.com.                        | github.com           | https://github.com
      https://GHE.example.com/           | ghe.example.com      | https://ghe.example.com
      https://ghe.example.com:443        | ghe.example.com      | https://ghe.example.com
      https://ghe.example.com:8443/      | ghe.example.com:8443 | https://ghe.example.com:8443
      http://127.0.0.1:7071/forge/       | 127.0.0.1:7071       | http://127.0.0.1:7071/forge
      """)
  void namesTheHostAsTheGatewayPathCarriesIt(String given, String segment, String base) {
    GitHost host = GitHost.of(given);
    assertThat(host.segment()).isEqualTo(segment);
    assertThat(host.baseUrl()).isEqualTo(base);
  }

  @Test
  void listsAHostWithAPortAndPathUnderItsOwnSchemeOnly() {
    assertThat(GitHost.of("http://127.0.0.1:7071/forge").pushPrefixes())
        .startsWith("http://127.0.0.1:7071/forge/")
        .contains("git@127.0.0.1:", "ssh://127.0.0.1:22/")
        .doesNotContain("https://127.0.0.1:7071/forge/", "http://127.0.0.1./");
  }

  @Test
  void refusesUserInfoWithoutEchoingIt() {
    assertThatThrownBy(() -> GitHost.of("https://x:ghp_secret@ghe.example.com"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("git host must be an http(s) URL without user info, query or fragment,"
            + " such as https://github.com");
  }

  @Test
  void refusesDotSegmentsInItsPath() {
    assertThatThrownBy(() -> GitHost.of("https://ghe.example.com/a/../b"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("git host path must be empty or /a/b");
  }

  @Test
  void namesARepositoryAsGhReadsGhRepo() {
    assertThat(GitHost.GITHUB.ghRepo("acme/widget")).isEqualTo("acme/widget");
    assertThat(GitHost.of("GHE.example.com").ghRepo("acme/widget"))
        .isEqualTo("ghe.example.com/acme/widget");
    assertThat(GitHost.of("https://ghe.example.com:8443").ghRepo("acme/widget"))
        .isEqualTo("ghe.example.com:8443/acme/widget");
  }
}
