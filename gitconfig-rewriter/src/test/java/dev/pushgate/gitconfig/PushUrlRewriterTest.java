package dev.pushgate.gitconfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PushUrlRewriterTest {
  private static final String GATEWAY = "http://127.0.0.1:7070";
  private static final String TO = "http://127.0.0.1:7070/git/github.com/";

  @TempDir Path dir;
  private RealGit git;
  private Path repo;
  private Path config;

  @BeforeEach
  void setUp() {
    git = new RealGit(dir);
    repo = dir.resolve("work");
    git.run(dir, "init", "-q", repo.toString()).ok();
    config = repo.resolve(".git/config");
  }

  @Test
  void rewritesEveryGitHubPushUrlToTheGateway() throws IOException {
    gitIn("remote", "add", "origin", "https://github.com/acme/widget.git");
    gitIn("config", "remote.origin.pushurl", "https://github.com/acme/widget.git");
    gitIn("remote", "add", "upstream", "https://github.com/up/widget.git");
    gitIn("config", "remote.upstream.pushurl", "git@github.com:up/widget");
    gitIn("remote", "add", "mirror", "https://gitlab.com/acme/widget.git");
    gitIn("config", "--add", "remote.mirror.pushurl", "ssh://git@github.com:22/acme/Widget.js/");
    gitIn("config", "--add", "remote.mirror.pushurl", "https://gitlab.com/acme/widget.git");
    gitIn("config", "--add", "remote.mirror.pushurl", "https://me@GitHub.com/acme/w_2");

    List<PushUrlRewrite> rewrites = PushUrlRewriter.rewrite(config, GATEWAY, "github.com");

    assertThat(rewrites).containsExactly(
        new PushUrlRewrite("origin", "https://github.com/acme/widget.git",
            TO + "acme/widget.git"),
        new PushUrlRewrite("upstream", "git@github.com:up/widget", TO + "up/widget.git"),
        new PushUrlRewrite("mirror", "ssh://git@github.com:22/acme/Widget.js/",
            TO + "acme/Widget.js.git"),
        new PushUrlRewrite("mirror", "https://***@GitHub.com/acme/w_2", TO + "acme/w_2.git"));
    assertThat(getAll("remote.origin.pushurl")).containsExactly(TO + "acme/widget.git");
    assertThat(getAll("remote.upstream.pushurl")).containsExactly(TO + "up/widget.git");
    assertThat(getAll("remote.mirror.pushurl")).containsExactly(TO + "acme/Widget.js.git",
        "https://gitlab.com/acme/widget.git", TO + "acme/w_2.git");
    assertThat(gitIn("remote", "get-url", "--push", "--all", "mirror").out()).isEqualTo(
        TO + "acme/Widget.js.git\nhttps://gitlab.com/acme/widget.git\n" + TO + "acme/w_2.git\n");
    assertThat(getAll("remote.origin.url")).containsExactly("https://github.com/acme/widget.git");
  }

  @Test
  void keepsEveryOtherByteOfTheFile() throws IOException {
    Files.writeString(config, String.join("", List.of(
        "; hand-edited\r\n",
        "[core]\n\tbare = false\t# stays\n",
        "[remote \"origin\"]\n",
        "\turl = https://github.com/acme/widget.git\n",
        "    PushUrl=\"https://github.com/acme/widget.git\"   ; my push url\r\n",
        "\tpushurl = git@github.com:\\\nacme/other.git\n",
        "\tpushurl = https://gitlab.com/x/y.git # untouched\n",
        "[remote.old] pushurl = github.com:acme/old\n",
        "[branch \"main\"]\n\tpushurl = https://github.com/not/a-remote.git\n")));

    List<PushUrlRewrite> rewrites = PushUrlRewriter.rewrite(config, GATEWAY, "github.com");

    assertThat(rewrites).extracting(PushUrlRewrite::remote)
        .containsExactly("origin", "origin", "old");
    assertThat(Files.readString(config)).isEqualTo(String.join("", List.of(
        "; hand-edited\r\n",
        "[core]\n\tbare = false\t# stays\n",
        "[remote \"origin\"]\n",
        "\turl = https://github.com/acme/widget.git\n",
        "    PushUrl= " + TO + "acme/widget.git   ; my push url\r\n",
        "\tpushurl = " + TO + "acme/other.git\n",
        "\tpushurl = https://gitlab.com/x/y.git # untouched\n",
        "[remote.old] pushurl = " + TO + "acme/old.git\n",
        "[branch \"main\"]\n\tpushurl = https://github.com/not/a-remote.git\n")));
    assertThat(gitIn("remote", "get-url", "--push", "--all", "origin").out())
        .isEqualTo(TO + "acme/widget.git\n" + TO + "acme/other.git\n"
            + "https://gitlab.com/x/y.git\n");
  }

  @Test
  void leavesTheFileAloneWhenNoPushUrlPointsAtTheHost() throws IOException {
    gitIn("remote", "add", "origin", "https://github.com/acme/widget.git");
    gitIn("config", "remote.origin.pushurl", "https://gitlab.com/acme/widget.git");
    byte[] before = Files.readAllBytes(config);
    Object inode = Files.getAttribute(config, "unix:ino");

    assertThat(PushUrlRewriter.rewrite(config, GATEWAY, "github.com")).isEmpty();

    assertThat(Files.readAllBytes(config)).isEqualTo(before);
    assertThat(Files.getAttribute(config, "unix:ino")).isEqualTo(inode);
    assertThat(Files.exists(lock())).isFalse();
  }

  @Test
  void aSecondRewriteFindsNothingToDo() throws IOException {
    gitIn("remote", "add", "origin", "https://github.com/acme/widget.git");
    gitIn("config", "remote.origin.pushurl", "git@github.com:acme/widget.git");
    assertThat(PushUrlRewriter.rewrite(config, GATEWAY, "github.com")).hasSize(1);
    byte[] after = Files.readAllBytes(config);

    assertThat(PushUrlRewriter.rewrite(config, GATEWAY, "github.com")).isEmpty();
    assertThat(Files.readAllBytes(config)).isEqualTo(after);
  }

  @Test
  void removesAnEmbeddedCredentialAndDoesNotReportIt() throws IOException {
    gitIn("config", "remote.origin.pushurl",
        "https://x-access-token:ghp_writeToken@github.com/acme/widget.git");

    List<PushUrlRewrite> rewrites = PushUrlRewriter.rewrite(config, GATEWAY, "github.com");

    assertThat(rewrites).containsExactly(new PushUrlRewrite("origin",
        "https://***@github.com/acme/widget.git", TO + "acme/widget.git"));
    assertThat(Files.readString(config)).doesNotContain("ghp_writeToken");
  }

  @Test
  void keepsRemoteNamesAsGitStoresThem() throws IOException {
    gitIn("config", "remote.wé\"ird\\name.pushurl", "https://github.com/acme/widget.git");

    List<PushUrlRewrite> rewrites = PushUrlRewriter.rewrite(config, GATEWAY, "github.com");

    assertThat(rewrites).extracting(PushUrlRewrite::remote).containsExactly("wé\"ird\\name");
    assertThat(getAll("remote.wé\"ird\\name.pushurl")).containsExactly(TO + "acme/widget.git");
  }

  @Test
  void rewritesToTheRunsGatewayAndHost() throws IOException {
    gitIn("config", "remote.origin.pushurl", "git@ghe.example.com:team/app.git");
    gitIn("config", "remote.gh.pushurl", "git@github.com:team/app.git");
    RunGitConfig run = RunGitConfig.of("http://127.0.0.1:9/pg\"w;", "cred")
        .withGitHost("ghe.example.com");

    List<PushUrlRewrite> rewrites = PushUrlRewriter.rewrite(config, run);

    String to = "http://127.0.0.1:9/pg\"w;/git/ghe.example.com/team/app.git";
    assertThat(rewrites).containsExactly(
        new PushUrlRewrite("origin", "git@ghe.example.com:team/app.git", to));
    assertThat(getAll("remote.origin.pushurl")).containsExactly(to);
    assertThat(getAll("remote.gh.pushurl")).containsExactly("git@github.com:team/app.git");
  }

  /**
   * Rewrites the config for github.com, checks that the rewrite is refused with {@code message}
   * for {@code reason}, and that the file is left as it was.
   */
  private void assertRefusedChangingNothing(String message,
      RepositoryConfigException.Reason reason) throws IOException {
    byte[] before = Files.readAllBytes(config);
    assertThatThrownBy(() -> PushUrlRewriter.rewrite(config, GATEWAY, "github.com"))
        .isInstanceOf(RepositoryConfigException.class)
        .hasMessage(message)
        .extracting(e -> ((RepositoryConfigException) e).reason())
        .isEqualTo(reason);
    assertThat(Files.readAllBytes(config)).isEqualTo(before);
  }

  @Test
  void refusesAnUnsafePushUrlAndChangesNothing() throws IOException {
    gitIn("config", "remote.origin.pushurl", "https://github.com/acme/widget.git");
    gitIn("config", "remote.evil.pushurl", "https://tok:en@github.com/acme/../../etc.git");

    assertRefusedChangingNothing("remote \"evil\" has a push URL that does not name a safe"
        + " repository (expected <owner>/<repository>, got \"acme/../../etc.git\"):"
        + " https://***@github.com/acme/../../etc.git",
        RepositoryConfigException.Reason.UNSAFE_PUSH_URL);
    assertThat(Files.exists(lock())).isFalse();
  }

  @Test
  void refusesAControlCharacterInAPushUrl() throws IOException {
    gitIn("config", "remote.origin.pushurl", "git@github.com:acme/wid\nget.git");
    byte[] before = Files.readAllBytes(config);

    assertThatThrownBy(() -> PushUrlRewriter.rewrite(config, GATEWAY, "github.com"))
        .isInstanceOf(RepositoryConfigException.class)
        .hasMessage("remote \"origin\" has a push URL that does not name a safe repository "
            + "(not a valid repository name: \"wid\\u000aget\"): git@github.com:acme/wid\\x0aget.git");
    assertThat(Files.readAllBytes(config)).isEqualTo(before);
  }

  @Test
  void refusesAFileGitCannotParseInGitsOwnWords() throws IOException {
    gitIn("config", "remote.origin.pushurl", "https://github.com/acme/widget.git");
    Files.writeString(config, "[remote \"other\"]\n\turl = \"unterminated\n",
        java.nio.file.StandardOpenOption.APPEND);
    RealGit.Result gitSays = gitIn("config", "--list");
    Matcher line = Pattern.compile("bad config line (\\d+) in file").matcher(gitSays.stderr());
    assertThat(line.find()).as(gitSays.stderr()).isTrue();

    assertRefusedChangingNothing(
        "bad config line " + line.group(1) + " in file " + config.toAbsolutePath(),
        RepositoryConfigException.Reason.MALFORMED);
    assertThat(Files.exists(lock())).isFalse();
  }

  @Test
  void refusesANulByte() throws IOException {
    Files.write(config, "[remote \"o\"]\n\tpushurl = https://github.com/a/b\0.git\n"
        .getBytes(StandardCharsets.UTF_8));

    assertThatThrownBy(() -> PushUrlRewriter.rewrite(config, GATEWAY, "github.com"))
        .isInstanceOf(RepositoryConfigException.class)
        .hasMessage("config file " + config.toAbsolutePath() + " contains a NUL byte at offset 46");
  }

  @Test
  void waitsForNoOneAndChangesNothingWhileGitHoldsTheLock() throws IOException {
    gitIn("config", "remote.origin.pushurl", "https://github.com/acme/widget.git");
    Files.writeString(lock(), "git is writing");

    assertRefusedChangingNothing("could not lock config file " + config.toAbsolutePath() + ": "
        + lock().toAbsolutePath() + " exists", RepositoryConfigException.Reason.LOCKED);
    assertThat(Files.readString(lock())).isEqualTo("git is writing");
  }

  @Test
  void refusesToWriteThroughASymlink() throws IOException {
    Path real = dir.resolve("elsewhere-config");
    Files.writeString(real, "[remote \"o\"]\n\tpushurl = https://github.com/a/b.git\n");
    Files.delete(config);
    Files.createSymbolicLink(config, real);

    assertThatThrownBy(() -> PushUrlRewriter.rewrite(config, GATEWAY, "github.com"))
        .isInstanceOf(RepositoryConfigException.class)
        .hasMessage(config.toAbsolutePath() + " is a symbolic link; not rewriting through it");
    assertThat(Files.readString(real)).contains("https://github.com/a/b.git");
  }

  @Test
  void refusesADirectory() {
    assertThatThrownBy(() -> PushUrlRewriter.rewrite(repo.resolve(".git"), GATEWAY, "github.com"))
        .isInstanceOf(RepositoryConfigException.class)
        .hasMessage(repo.resolve(".git").toAbsolutePath() + " is not a regular file");
  }

  @Test
  void keepsTheFileMode() throws IOException {
    gitIn("config", "remote.origin.pushurl", "https://github.com/acme/widget.git");
    Files.setPosixFilePermissions(config, PosixFilePermissions.fromString("rw-r-----"));

    PushUrlRewriter.rewrite(config, GATEWAY, "github.com");

    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(config)))
        .isEqualTo("rw-r-----");
    assertThat(Files.exists(lock())).isFalse();
  }

  @Test
  void refusesABadGatewayBeforeTouchingTheFile() throws IOException {
    gitIn("config", "remote.origin.pushurl", "https://github.com/acme/widget.git");
    byte[] before = Files.readAllBytes(config);

    assertThatThrownBy(() -> PushUrlRewriter.rewrite(config, "127.0.0.1:7070", "github.com"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("gateway base URL must start with http:// or https://: 127.0.0.1:7070");
    assertThat(Files.readAllBytes(config)).isEqualTo(before);
  }

  private RealGit.Result gitIn(String... args) {
    RealGit.Result r = git.run(repo, args);
    if (args[0].equals("config") && args.length > 1 && !args[1].equals("--list")) {
      r.ok();
    }
    if (args[0].equals("remote")) {
      r.ok();
    }
    return r;
  }

  private List<String> getAll(String key) {
    return git.run(repo, "config", "--get-all", key).ok().out().lines().toList();
  }

  private Path lock() {
    return repo.resolve(".git/config.lock");
  }
}
