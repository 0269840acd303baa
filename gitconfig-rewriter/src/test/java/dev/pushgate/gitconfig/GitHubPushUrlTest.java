package dev.pushgate.gitconfig;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class GitHubPushUrlTest {
  @ParameterizedTest
  @ValueSource(strings = {
      "https://github.com/acme/widget.git",
      "https://github.com/acme/widget",
      "https://github.com/acme/widget.git/",
      "https://GitHub.COM/acme/widget.git",
      "HTTPS://github.com/acme/widget.git",
      "https://user@github.com/acme/widget.git",
      "https://x-access-token:ghp_x@github.com/acme/widget.git",
      "https://github.com:443/acme/widget.git",
      "ssh://git@github.com/acme/widget.git",
      "ssh://git@github.com:22/acme/widget.git",
      "ssh://github.com/acme/widget",
      "git+ssh://git@github.com/acme/widget.git",
      "ssh+git://git@github.com/acme/widget.git",
      "git@github.com:acme/widget.git",
      "git@github.com:/acme/widget.git",
      "github.com:acme/widget",
      // spellings a pushInsteadOf prefix once missed, which git and the network take as GitHub
      "http://github.com/acme/widget.git",
      "http://github.com:80/acme/widget.git",
      "https://github.com./acme/widget.git",
      "ssh://GitHub.com./acme/widget",
      "ssh://deploy@github.com:22/acme/widget/",
      "user@github.com:acme/widget",
      "git@[github.com]:acme/widget.git",
      "[GitHub.com]:acme/widget.git",
  })
  void recognisesEveryFormOfTheSameRepository(String url) {
    assertThat(GitHubPushUrl.match(url, GitHost.GITHUB))
        .isEqualTo(new GitHubPushUrl.Repository("acme", "widget"));
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "https://gitlab.com/acme/widget.git",
      "https://github.com.evil.example/acme/widget.git",
      "https://evil.example/github.com/acme/widget.git",
      "https://github.com:8443/acme/widget.git",
      "http://github.com:443/acme/widget.git",
      "ssh://git@github.com:2222/acme/widget.git",
      "ssh://git@[github.com]:2222/acme/widget.git",
      "git://github.com/acme/widget.git",
      "file:///srv/github.com/acme/widget.git",
      "/srv/git/github.com:acme/widget.git",
      "./github.com:acme/widget",
      "http://127.0.0.1:7070/git/github.com/acme/widget.git",
      "",
  })
  void leavesOtherUrlsAlone(String url) {
    assertThat(GitHubPushUrl.match(url, GitHost.GITHUB)).isEqualTo(new GitHubPushUrl.Elsewhere());
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', quoteCharacter = '\'', textBlock = """
      https://github.com/../widget.git        | not a valid owner: ".."
      https://github.com/acme/..              | not a valid repository name: ".."
      https://github.com/acme/.git            | not a valid repository name: ""
      https://github.com//widget.git          | not a valid owner: ""
      https://github.com/acme/                | expected <owner>/<repository>, got "acme/"
      https://github.com/acme                 | expected <owner>/<repository>, got "acme"
      https://github.com                      | expected <owner>/<repository>, got ""
      https://github.com/a/b/c.git            | expected <owner>/<repository>, got "a/b/c.git"
      https://github.com/acme/wid%2e%2e       | not a valid repository name: "wid%2e%2e"
      https://github.com/acme/widget.git?x=1  | not a valid repository name: "widget.git?x=1"
      git@github.com:acme/w\tx.git            | not a valid repository name: "w\\u0009x"
      git@github.com:acme\\evil/widget        | not a valid owner: "acme\\\\\\\\evil"
      """)
  void refusesAGitHubUrlThatDoesNotNameARepositorySafely(String url, String why) {
    String decoded = url.replace("\\t", "\t").replace("\\\\", "\\");
    assertThat(GitHubPushUrl.match(decoded, GitHost.GITHUB)).isEqualTo(new GitHubPushUrl.Unsafe(
        why.replace("\\\\", "\\")));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      https://x-access-token:ghp_secret@github.com/a/b.git | https://***@github.com/a/b.git
      https://ghp_secret@github.com/a/b.git                | https://***@github.com/a/b.git
      ssh://git@github.com/a/b.git                         | ssh://git@github.com/a/b.git
      ssh://deploy:pw@github.com:22/a/b.git                | ssh://***@github.com:22/a/b.git
      git@github.com:a/b.git                               | git@github.com:a/b.git
      me@github.com:a/b.git                                | ***@github.com:a/b.git
      https://github.com/a/b@c.git                         | https://github.com/a/b@c.git
      """)
  void redactsUserInfoOtherThanGit(String url, String shown) {
    assertThat(GitHubPushUrl.redacted(url)).isEqualTo(shown);
  }
}
