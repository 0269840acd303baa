package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.GitRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Git reads end to end: the real git CLI with a run's environment clones, fetches, pulls and
 * lists through the gateway, for every spelling of a GitHub URL the push rewrite covers, with no
 * token in the run's git config and no credential helper ever run. The upstream is the local
 * forge.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GitReadsTest {
  private static final String RUN = """
      {"workspaceId": "ws-1", "mode": "chat", "repository": "acme/widget",
       "attachedRepositories": ["acme/lib"]}""";
  private static final Pattern GITHUB_TOKEN = Pattern.compile("gh[pousr]_[A-Za-z0-9]{20,}");
  /** What the run's GH_TOKEN is replaced with: git must never need it. */
  private static final String POISON = "ghs_poisonedTokenThatNoOneAccepts0000000";

  @RegisterExtension
  static final ApplianceExtension app = ApplianceExtension.serving()
      .withRepos("acme/widget", "acme/lib", "acme/other");

  private JsonNode run;
  private GitRun git;
  /** Plain git, outside any run: stands for someone pushing upstream past the gateway. */
  private GitRun outside;
  private Path gitConfig;

  @BeforeAll
  void start() throws Exception {
    run = app.get().createRun(RUN);
    gitConfig = Path.of(run.get("env").get("GIT_CONFIG_GLOBAL").asText());
    git = new GitRun(Files.createDirectories(app.dir().resolve("home")),
        Map.of("GIT_CONFIG_GLOBAL", gitConfig.toString(), "GH_TOKEN", POISON,
            "GIT_TRACE", "1"));
    Path empty = Files.writeString(app.dir().resolve("empty.gitconfig"), "");
    outside = new GitRun(Files.createDirectories(app.dir().resolve("outside-home")),
        Map.of("GIT_CONFIG_GLOBAL", empty.toString()));
    // a second commit upstream, for the shallow clone to leave out
    Path seed = app.dir().resolve("seed");
    outside.in(app.dir(), "clone", "-q", app.get().forgeRepo("acme/widget").toString(),
        seed.toString()).ok();
    Files.writeString(seed.resolve("README.md"), "changed\n");
    outside.in(seed, "add", "README.md").ok();
    commit(outside, seed, "second.txt", "two");
    outside.in(seed, "push", "-q", "origin", "HEAD").ok();
  }

  @Test
  void clonesFetchesPullsAndListsThroughEverySpelling() throws Exception {
    String main = upstreamMain();
    String[] spellings = {"https://github.com/acme/widget.git", "https://github.com/acme/widget",
        "git@github.com:acme/widget.git", "ssh://git@github.com/acme/widget",
        "https://github.com/ACME/Widget.git"};
    for (int i = 0; i < spellings.length; i++) {
      String url = spellings[i];
      Path dir = app.dir().resolve("spelling-" + i);
      GitRun.Result clone = noCredentialHelper(git.in(app.dir(), "clone", url,
          dir.toString()).ok());
      assertThat(clone.stderr()).as(url).contains(app.get().gatewayUrl());
      assertThat(head(dir)).as(url).isEqualTo(main);
      assertThat(Files.readString(dir.resolve("second.txt"))).as(url).isEqualTo("two\n");
      assertThat(noCredentialHelper(git.in(app.dir(), "ls-remote", url).ok()).stdout()).as(url)
          .contains(main + "\trefs/heads/main").contains(main + "\tHEAD");
      noCredentialHelper(git.in(dir, "fetch", "origin").ok());
      noCredentialHelper(git.in(dir, "pull", "-q", "--ff-only").ok());
    }
  }

  @Test
  void aFetchSeesUpstreamAfterItMovedPastTheGateway() throws Exception {
    Path clone = app.dir().resolve("moved");
    git.in(app.dir(), "clone", "-q", "https://github.com/acme/widget.git", clone.toString()).ok();
    Path other = app.dir().resolve("someone-else");
    outside.in(app.dir(), "clone", "-q", app.get().forgeRepo("acme/widget").toString(),
        other.toString())
        .ok();
    commit(outside, other, "theirs.txt", "theirs");
    outside.in(other, "push", "-q", "origin", "HEAD:main", "HEAD:refs/heads/elsewhere").ok();
    String theirs = head(other);

    assertThat(git.in(clone, "ls-remote", "origin").ok().stdout())
        .contains(theirs + "\trefs/heads/main", theirs + "\trefs/heads/elsewhere");
    noCredentialHelper(git.in(clone, "pull", "-q", "--ff-only").ok());
    assertThat(head(clone)).isEqualTo(theirs);
    assertThat(Files.readString(clone.resolve("theirs.txt"))).isEqualTo("theirs\n");
  }

  @Test
  void anAttachedRepositoryIsServedAndAnotherIsRefusedInGitsOutput() throws Exception {
    git.in(app.dir(), "clone", "-q", "https://github.com/acme/lib.git",
        app.dir().resolve("lib").toString())
        .ok();
    GitRun.Result refused = git.in(app.dir(), "clone", "https://github.com/acme/other.git",
        app.dir().resolve("other").toString()).failed();
    assertThat(refused.stderr()).contains("remote: Control Center policy: acme/other is neither"
        + " this run's repository nor attached to its workspace");
    assertThat(app.dir().resolve("other")).doesNotExist();
  }

  @Test
  void speaksProtocolV0AndV2() throws Exception {
    for (String version : List.of("0", "2")) {
      Path dir = app.dir().resolve("protocol-" + version);
      GitRun.Result clone = git.withEnv("GIT_TRACE_PACKET", "1").in(app.dir(), "-c",
          "protocol.version=" + version, "clone", "https://github.com/acme/widget.git",
          dir.toString()).ok();
      if (version.equals("2")) {
        assertThat(clone.stderr()).contains("< version 2").contains("> command=fetch");
      } else {
        assertThat(clone.stderr()).doesNotContain("< version 2").contains("> want ");
      }
      assertThat(head(dir)).isEqualTo(upstreamMain());
    }
  }

  @Test
  void servesAShallowAndAPartialClone() throws Exception {
    Path shallow = app.dir().resolve("shallow");
    git.in(app.dir(), "clone", "-q", "--depth", "1", "https://github.com/acme/widget.git",
        shallow.toString()).ok();
    assertThat(git.in(shallow, "rev-list", "--count", "HEAD").ok().stdout().strip())
        .isEqualTo("1");
    assertThat(git.in(shallow, "rev-parse", "--is-shallow-repository").ok().stdout().strip())
        .isEqualTo("true");

    Path partial = app.dir().resolve("partial");
    git.in(app.dir(), "clone", "-q", "--filter=blob:none", "https://github.com/acme/widget.git",
        partial.toString()).ok();
    assertThat(git.in(partial, "config", "remote.origin.promisor").ok().stdout().strip())
        .isEqualTo("true");
    assertThat(Files.readString(partial.resolve("second.txt"))).isEqualTo("two\n");
    // the blobs of an older commit are fetched when needed, by id, through the gateway
    String root = git.in(partial, "rev-list", "--max-parents=0", "HEAD").ok().stdout().strip();
    GitRun.Result old = noCredentialHelper(git.in(partial, "show", root + ":README.md").ok());
    assertThat(old.stdout()).isNotEmpty().isNotEqualTo("changed\n");
    assertThat(old.stderr()).contains("fetch origin");
  }

  /**
   * attack36b: {@code git fetch --deepen} sends deepen-relative, which JGit's upload-pack cannot
   * serve (it threw: "HTTP 500", "expected 'acknowledgments'"). git is told what is not served
   * and what to use instead, and that works.
   */
  @Test
  void deepeningAShallowCloneByCommitsIsRefusedSayingWhatToUseInstead() throws Exception {
    Path shallow = app.dir().resolve("deepened");
    git.in(app.dir(), "clone", "-q", "--depth", "1", "https://github.com/acme/widget.git",
        shallow.toString()).ok();

    GitRun.Result deepen = git.in(shallow, "fetch", "-q", "--deepen=1").failed();
    assertThat(deepen.stderr()).contains("fatal: remote error: the gateway does not serve"
        + " deepen-relative (git fetch --deepen); fetch with --depth=<n> to deepen a shallow"
        + " clone to n commits from the tips").doesNotContain("HTTP 500");

    git.in(shallow, "fetch", "-q", "--depth=2").ok();
    assertThat(git.in(shallow, "rev-list", "--count", "HEAD").ok().stdout().strip())
        .isEqualTo("2");
  }

  @Test
  void theRunsGitConfigHoldsNoTokenAndGitRunsNoCredentialHelper() throws Exception {
    String config = Files.readString(gitConfig);
    String readToken = run.get("env").get("GH_TOKEN").asText();
    assertThat(config).doesNotContain(readToken).doesNotContain("GH_TOKEN")
        .doesNotContain("credential.helper=!").containsPattern("\\[credential\\]\\n\\thelper =\\n");
    assertThat(GITHUB_TOKEN.matcher(config).find()).isFalse();
    // the poisoned GH_TOKEN changes nothing: git never asks for a credential
    noCredentialHelper(git.in(app.dir(), "ls-remote", "https://github.com/acme/widget.git").ok());
  }

  /** GIT_TRACE shows every command git runs: no credential helper among them. */
  private GitRun.Result noCredentialHelper(GitRun.Result r) {
    assertThat(r.stderr()).contains("trace: ").doesNotContain("credential")
        .doesNotContain(POISON);
    return r;
  }

  private String upstreamMain() throws Exception {
    return outside.in(app.get().forgeRepo("acme/widget"), "rev-parse",
        "refs/heads/main").ok().stdout()
        .strip();
  }

  private String head(Path dir) throws Exception {
    return outside.in(dir, "rev-parse", "HEAD").ok().stdout().strip();
  }

  private void commit(GitRun git, Path dir, String file, String content) throws Exception {
    Files.writeString(dir.resolve(file), content + "\n");
    git.in(dir, "add", file).ok();
    git.in(dir, "commit", "-q", "-m", "change " + file + " to " + content).ok();
  }
}
