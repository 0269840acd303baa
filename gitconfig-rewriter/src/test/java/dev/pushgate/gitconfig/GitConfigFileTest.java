package dev.pushgate.gitconfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pushgate.types.UntrustedText;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GitConfigFileTest {
  private static final String GATEWAY = "http://127.0.0.1:7070";
  private static final String FORGE = "http://127.0.0.1:7070/forge/";
  private static final String CREDENTIAL = "pgr_run_0123";
  private static final String READ_TOKEN = "ghs_readOnly42";

  @TempDir Path dir;
  private RealGit git;

  @BeforeEach
  void setUp() {
    git = new RealGit(dir);
  }

  @Test
  void rendersTheGitHubModeFile() {
    assertThat(GitConfigFile.render(RunGitConfig.of(GATEWAY + "/", CREDENTIAL))).isEqualTo("""
        # Written by pushgate for one agent run; removed when the run ends.
        [url "http://127.0.0.1:7070/git/github.com/"]
        \tpushInsteadOf = https://github.com/
        \tpushInsteadOf = https://github.com:443/
        \tpushInsteadOf = http://github.com/
        \tpushInsteadOf = http://github.com:80/
        \tpushInsteadOf = https://github.com./
        \tpushInsteadOf = https://github.com.:443/
        \tpushInsteadOf = http://github.com./
        \tpushInsteadOf = http://github.com.:80/
        \tpushInsteadOf = ssh://github.com/
        \tpushInsteadOf = ssh://github.com:22/
        \tpushInsteadOf = git+ssh://github.com/
        \tpushInsteadOf = git+ssh://github.com:22/
        \tpushInsteadOf = ssh+git://github.com/
        \tpushInsteadOf = ssh+git://github.com:22/
        \tpushInsteadOf = github.com:
        \tpushInsteadOf = [github.com]:
        \tpushInsteadOf = ssh://git@github.com/
        \tpushInsteadOf = ssh://git@github.com:22/
        \tpushInsteadOf = git+ssh://git@github.com/
        \tpushInsteadOf = git+ssh://git@github.com:22/
        \tpushInsteadOf = ssh+git://git@github.com/
        \tpushInsteadOf = ssh+git://git@github.com:22/
        \tpushInsteadOf = git@github.com:
        \tpushInsteadOf = git@[github.com]:
        \tpushInsteadOf = ssh://github.com./
        \tpushInsteadOf = ssh://github.com.:22/
        \tpushInsteadOf = git+ssh://github.com./
        \tpushInsteadOf = git+ssh://github.com.:22/
        \tpushInsteadOf = ssh+git://github.com./
        \tpushInsteadOf = ssh+git://github.com.:22/
        \tpushInsteadOf = github.com.:
        \tpushInsteadOf = [github.com.]:
        \tpushInsteadOf = ssh://git@github.com./
        \tpushInsteadOf = ssh://git@github.com.:22/
        \tpushInsteadOf = git+ssh://git@github.com./
        \tpushInsteadOf = git+ssh://git@github.com.:22/
        \tpushInsteadOf = ssh+git://git@github.com./
        \tpushInsteadOf = ssh+git://git@github.com.:22/
        \tpushInsteadOf = git@github.com.:
        \tpushInsteadOf = git@[github.com.]:
        \tinsteadOf = https://github.com/
        \tinsteadOf = https://github.com:443/
        \tinsteadOf = http://github.com/
        \tinsteadOf = http://github.com:80/
        \tinsteadOf = https://github.com./
        \tinsteadOf = https://github.com.:443/
        \tinsteadOf = http://github.com./
        \tinsteadOf = http://github.com.:80/
        \tinsteadOf = ssh://github.com/
        \tinsteadOf = ssh://github.com:22/
        \tinsteadOf = git+ssh://github.com/
        \tinsteadOf = git+ssh://github.com:22/
        \tinsteadOf = ssh+git://github.com/
        \tinsteadOf = ssh+git://github.com:22/
        \tinsteadOf = github.com:
        \tinsteadOf = [github.com]:
        \tinsteadOf = ssh://git@github.com/
        \tinsteadOf = ssh://git@github.com:22/
        \tinsteadOf = git+ssh://git@github.com/
        \tinsteadOf = git+ssh://git@github.com:22/
        \tinsteadOf = ssh+git://git@github.com/
        \tinsteadOf = ssh+git://git@github.com:22/
        \tinsteadOf = git@github.com:
        \tinsteadOf = git@[github.com]:
        \tinsteadOf = ssh://github.com./
        \tinsteadOf = ssh://github.com.:22/
        \tinsteadOf = git+ssh://github.com./
        \tinsteadOf = git+ssh://github.com.:22/
        \tinsteadOf = ssh+git://github.com./
        \tinsteadOf = ssh+git://github.com.:22/
        \tinsteadOf = github.com.:
        \tinsteadOf = [github.com.]:
        \tinsteadOf = ssh://git@github.com./
        \tinsteadOf = ssh://git@github.com.:22/
        \tinsteadOf = git+ssh://git@github.com./
        \tinsteadOf = git+ssh://git@github.com.:22/
        \tinsteadOf = ssh+git://git@github.com./
        \tinsteadOf = ssh+git://git@github.com.:22/
        \tinsteadOf = git@github.com.:
        \tinsteadOf = git@[github.com.]:
        [http "http://127.0.0.1:7070/git/"]
        \textraHeader =
        \textraHeader = Authorization: Bearer pgr_run_0123
        [http "https://github.com/"]
        \tproxy = http://use-github-com-in-lowercase-as-in-the-run-s-git-config.pushgate-refused.invalid
        [http "http://github.com/"]
        \tproxy = http://use-github-com-in-lowercase-as-in-the-run-s-git-config.pushgate-refused.invalid
        [http "https://*.github.com/"]
        \tproxy = http://use-github-com-in-lowercase-as-in-the-run-s-git-config.pushgate-refused.invalid
        [http "http://*.github.com/"]
        \tproxy = http://use-github-com-in-lowercase-as-in-the-run-s-git-config.pushgate-refused.invalid
        [protocol "git"]
        \tallow = never
        [credential]
        \thelper =
        [core]
        \tsshCommand = "f() { h=; c=; for a; do h=$c; c=$a; done; n=$(printf '%s' \\"${h##*@}\\" | tr\
         -d '[]' | tr 'A-Z' 'a-z'); n=${n%.}; case \\"$c\\" in\
         git-receive-pack*|git-upload-pack*|git-upload-archive*) case \\"$n\\" in\
         github.com|ssh.github.com) p=${c#*\\\\'}; p=${p%\\\\'}; p=${p#/}; printf\
         'pushgate: this fetch or push of %s was not sent to the gateway: git rewrites\
         only the spellings of %s it was given, and this URL spells it otherwise. Use\
         %s/%s instead, where the run'\\\\''s rules judge it.\\\\n' \\"$h:$p\\"\
         github.com https://github.com \\"$p\\" >&2; exit 128;; esac;; esac; exec ssh\
         \\"$@\\"; }; f"
        [ssh]
        \tvariant = ssh
        [user]
        \tname = pushgate agent
        \temail = agent@pushgate.invalid
        [branch]
        \tautoSetupMerge = false
        [push]
        \tdefault = current
        """);
  }

  @Test
  void gitReadsEveryValueOfTheGitHubModeFile() throws IOException {
    Path file = write(RunGitConfig.of(GATEWAY, CREDENTIAL));
    assertThat(git.list(file)).containsExactlyElementsOf(
        expectedEntries(GATEWAY, "github.com", CREDENTIAL, null));
  }

  @Test
  void gitReadsEveryValueOfTheLocalForgeModeFile() throws IOException {
    Path file = write(RunGitConfig.of(GATEWAY, CREDENTIAL).withFetchBaseUrl(FORGE));
    assertThat(git.list(file)).containsExactlyElementsOf(
        expectedEntries(GATEWAY, "github.com", CREDENTIAL, FORGE));
  }

  @Test
  void gitReadsBackAHostileCredentialAndBaseUrlExactly() throws IOException {
    String credential = "a\"b\\c#d;e$f`g'h%s&|<>{}!~";
    String gateway = "http://127.0.0.1:7070/p\"q\\r;s'`";
    RunGitConfig config = RunGitConfig.of(gateway, credential);
    Path file = write(config);
    assertThat(git.list(file)).containsExactlyElementsOf(
        expectedEntries(gateway, "github.com", credential, null));
    assertThat(urlMatch(file, "http.extraHeader", gateway + "/git/github.com/acme/widget.git"))
        .isEqualTo("Authorization: Bearer " + credential);
  }

  @Test
  void sendsFetchesAndPushesOfAllThreeGitHubFormsToTheGateway() throws IOException {
    Path file = write(RunGitConfig.of(GATEWAY, CREDENTIAL));
    Path repo = repoWithRemotes(file);
    String gateway = "http://127.0.0.1:7070/git/github.com/acme/widget";
    assertThat(pushUrl(file, repo, "https")).isEqualTo(gateway + ".git");
    assertThat(pushUrl(file, repo, "scp")).isEqualTo(gateway + ".git");
    assertThat(pushUrl(file, repo, "ssh")).isEqualTo(gateway);
    assertThat(fetchUrl(file, repo, "https")).isEqualTo(gateway + ".git");
    assertThat(fetchUrl(file, repo, "scp")).isEqualTo(gateway + ".git");
    assertThat(fetchUrl(file, repo, "ssh")).isEqualTo(gateway);
    assertThat(fetchUrl(file, repo, "other")).isEqualTo("https://gitlab.com/acme/widget.git");
    assertThat(pushUrl(file, repo, "other")).isEqualTo("https://gitlab.com/acme/widget.git");
  }

  @Test
  void sendsFetchesAndPushesOfEverySpellingGitTakesForTheHostToTheGateway() throws IOException {
    Path file = write(RunGitConfig.of(GATEWAY, CREDENTIAL));
    Path repo = dir.resolve("spellings");
    RealGit run = git.globalConfig(file);
    run.run(dir, "init", "-q", repo.toString()).ok();
    List<String> urls = List.of("ssh://github.com/acme/widget.git",
        "ssh://git@github.com:22/acme/widget.git", "git+ssh://github.com/acme/widget.git",
        "ssh+git://git@github.com:22/acme/widget.git", "github.com:acme/widget.git",
        "git@[github.com]:acme/widget.git", "https://github.com:443/acme/widget.git",
        "http://github.com/acme/widget.git", "https://github.com./acme/widget.git",
        "git@github.com.:acme/widget.git", "https://github.com/acme/widget.git/");
    for (int i = 0; i < urls.size(); i++) {
      run.run(repo, "remote", "add", "r" + i, urls.get(i)).ok();
      assertThat(pushUrl(file, repo, "r" + i)).as(urls.get(i))
          .startsWith("http://127.0.0.1:7070/git/github.com/acme/widget.git");
      assertThat(fetchUrl(file, repo, "r" + i)).as(urls.get(i))
          .startsWith("http://127.0.0.1:7070/git/github.com/acme/widget.git");
    }
  }

  @Test
  void refusesAnSshFetchOrPushToTheHostThatNoPrefixRewroteAndPassesEverythingElseToSsh()
      throws IOException {
    Path file = write(RunGitConfig.of(GATEWAY, CREDENTIAL));
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Path ssh = bin.resolve("ssh");
    Files.writeString(ssh, "#!/bin/sh\necho \"fake ssh: $*\" >&2\nexit 1\n");
    Files.setPosixFilePermissions(ssh, PosixFilePermissions.fromString("rwx------"));
    RealGit run = git.globalConfig(file).with("PATH", bin + ":" + System.getenv("PATH"));
    Path repo = dir.resolve("guarded");
    run.run(dir, "init", "-q", repo.toString()).ok();
    run.run(repo, "-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-q",
        "--allow-empty", "-m", "x").ok();

    for (String url : List.of("deploy@GitHub.com:acme/widget.git",
        "ssh://GITHUB.COM./acme/widget.git", "ssh://git@ssh.github.com:443/acme/widget.git",
        "git@GitHub.com:acme/widget.git", "ssh://git@GitHub.com/acme/widget.git")) {
      for (List<String> op : List.of(List.of("push", url, "HEAD:refs/heads/x"),
          List.of("fetch", url), List.of("ls-remote", url))) {
        RealGit.Result r = run.run(repo, op.toArray(String[]::new));
        assertThat(r.exit()).as(op.toString()).isEqualTo(128);
        assertThat(r.stderr()).as(op.toString()).contains("pushgate: this fetch or push of ")
            .contains(" was not sent to the gateway: git rewrites only the spellings of github.com"
                + " it was given, and this URL spells it otherwise. Use"
                + " https://github.com/acme/widget.git instead, where the run's rules judge it.")
            .doesNotContain("fake ssh");
      }
    }
    // another host is ssh's business
    assertThat(run.run(repo, "push", "git@gitlab.com:acme/widget.git", "HEAD:x").stderr())
        .contains("fake ssh: ").contains("git@gitlab.com git-receive-pack 'acme/widget.git'");
    assertThat(run.run(repo, "fetch", "git@gitlab.com:acme/widget.git").stderr())
        .contains("fake ssh: ").contains("git@gitlab.com git-upload-pack 'acme/widget.git'");
  }

  /**
   * Every http(s) and git:// spelling of the host git accepts is rewritten to the gateway (whose
   * port here refuses connections) or fails closed naming what to do; none reaches the host.
   * The gateway's port is 1, not the appliance's default 7070: an appliance started by hand on
   * this machine answers there, and git then asks for a username instead of failing to connect.
   */
  @Test
  void everyHttpSpellingOfTheHostIsRewrittenOrFailsClosedForFetchAndPush() throws IOException {
    Path file = write(RunGitConfig.of("http://127.0.0.1:1", CREDENTIAL));
    // the run's proxy (refusing the host however spelt: RunProxyGitHostTest), here a closed port
    RealGit run = git.globalConfig(file).with("HTTPS_PROXY", "http://127.0.0.1:9")
        .with("http_proxy", "http://127.0.0.1:9").with("NO_PROXY", "127.0.0.1,localhost")
        .with("GIT_TERMINAL_PROMPT", "0");
    Path repo = dir.resolve("spellings");
    run.run(dir, "init", "-q", repo.toString()).ok();
    run.run(repo, "-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-q",
        "--allow-empty", "-m", "x").ok();
    String refused = "Could not resolve proxy: use-github-com-in-lowercase-as-in-the-run-s-git-config"
        + ".pushgate-refused.invalid";
    String gateway = "127.0.0.1 port 1 ";
    Map<String, String> spellings = new java.util.LinkedHashMap<>();
    spellings.put("https://github.com/acme/widget.git", gateway);
    spellings.put("https://github.com:443/acme/widget.git", gateway);
    spellings.put("https://github.com./acme/widget.git", gateway);
    spellings.put("http://github.com/acme/widget.git", gateway);
    spellings.put("https://GitHub.com/acme/widget.git", refused);
    spellings.put("https://GITHUB.COM/acme/widget.git", refused);
    spellings.put("https://gitHUB.com./acme/widget.git", refused);
    spellings.put("https://GitHub.com:443/acme/widget.git", refused);
    spellings.put("https://github.com:0443/acme/widget.git", refused);
    spellings.put("https://x@github.com/acme/widget.git", refused);
    spellings.put("https://x:y@GitHub.com/acme/widget.git", refused);
    spellings.put("http://GitHub.com/acme/widget.git", refused);
    spellings.put("http://github.com:80/acme/widget.git", gateway);
    spellings.put("https://www.github.com/acme/widget.git", refused);
    spellings.put("https://WWW.GitHub.com/acme/widget.git", refused);
    // git's URL matching cannot read these hosts: only the run's proxy stands in their way
    String runProxy = "127.0.0.1 port 9";
    for (String scheme : List.of("https", "http")) {
      for (String host : List.of("%67ithub.com", "%47ithub.com", "github%2Ecom",
          "x@%67ithub.com")) {
        spellings.put(scheme + "://" + host + "/acme/widget.git", runProxy);
      }
    }
    spellings.put("git://github.com/acme/widget.git", "transport 'git' not allowed");
    spellings.put("git://GitHub.com/acme/widget.git", "transport 'git' not allowed");
    for (Map.Entry<String, String> e : spellings.entrySet()) {
      for (List<String> op : List.of(List.of("ls-remote", e.getKey()),
          List.of("fetch", e.getKey()), List.of("push", e.getKey(), "HEAD:refs/heads/x"))) {
        RealGit.Result r = run.run(repo, op.toArray(String[]::new));
        assertThat(r.exit()).as(op.toString()).isNotZero();
        assertThat(r.stderr()).as(op.toString()).contains(e.getValue())
            .doesNotContain("Could not resolve host: ");
      }
    }
  }

  @Test
  void sendsPushesOfAnEnterpriseHostToTheGatewayUnderThatHostAndLeavesGitHubAlone()
      throws IOException {
    RunGitConfig config = RunGitConfig.of(GATEWAY, CREDENTIAL)
        .withGitHost("https://GHE.example.com/");
    Path file = write(config);
    Path repo = dir.resolve("ghes");
    RealGit run = git.globalConfig(file);
    run.run(dir, "init", "-q", repo.toString()).ok();
    run.run(repo, "remote", "add", "https", "https://ghe.example.com/acme/widget.git").ok();
    run.run(repo, "remote", "add", "scp", "git@ghe.example.com:acme/widget.git").ok();
    run.run(repo, "remote", "add", "github", "https://github.com/acme/widget.git").ok();
    String gateway = "http://127.0.0.1:7070/git/ghe.example.com/acme/widget.git";
    assertThat(pushUrl(file, repo, "https")).isEqualTo(gateway);
    assertThat(pushUrl(file, repo, "scp")).isEqualTo(gateway);
    assertThat(fetchUrl(file, repo, "https")).isEqualTo(gateway);
    assertThat(fetchUrl(file, repo, "scp")).isEqualTo(gateway);
    assertThat(pushUrl(file, repo, "github")).isEqualTo("https://github.com/acme/widget.git");
    assertThat(fetchUrl(file, repo, "github")).isEqualTo("https://github.com/acme/widget.git");
  }

  @Test
  void inLocalForgeModeGitHubAndForgeUrlsBothGoToTheGateway() throws IOException {
    Path file = write(RunGitConfig.of(GATEWAY, CREDENTIAL).withFetchBaseUrl(FORGE));
    Path repo = repoWithRemotes(file);
    for (String remote : List.of("https", "scp", "forge")) {
      assertThat(fetchUrl(file, repo, remote))
          .isEqualTo("http://127.0.0.1:7070/git/github.com/acme/widget.git");
      assertThat(pushUrl(file, repo, remote))
          .isEqualTo("http://127.0.0.1:7070/git/github.com/acme/widget.git");
    }
    assertThat(git.globalConfig(file).run(repo, "ls-remote", "--get-url", "https").ok().out())
        .isEqualTo("http://127.0.0.1:7070/git/github.com/acme/widget.git\n");
  }

  /** git applies {@code insteadOf}, though not {@code pushInsteadOf}, to an explicit pushurl. */
  @Test
  void anExplicitPushUrlOfTheHostGoesToTheGatewayToo() throws IOException {
    Path file = write(RunGitConfig.of(GATEWAY, CREDENTIAL));
    Path repo = repoWithRemotes(file);
    git.globalConfig(file).run(repo, "config", "remote.other.pushurl",
        "git@github.com:acme/widget.git").ok();
    assertThat(pushUrl(file, repo, "other"))
        .isEqualTo("http://127.0.0.1:7070/git/github.com/acme/widget.git");
  }

  @Test
  void sendsTheRunCredentialHeaderToTheGatewayPathOnly() throws IOException {
    Path file = write(RunGitConfig.of(GATEWAY, CREDENTIAL).withFetchBaseUrl(FORGE));
    String header = "Authorization: Bearer " + CREDENTIAL;
    assertThat(urlMatch(file, "http.extraHeader", GATEWAY + "/git/github.com/acme/widget.git"))
        .isEqualTo(header);
    assertThat(urlMatch(file, "http.extraHeader", GATEWAY + "/git/")).isEqualTo(header);
    for (String elsewhere : List.of(FORGE + "acme/widget.git", "https://github.com/acme/w.git",
        "http://127.0.0.1:7071/git/github.com/a/b.git", GATEWAY + "/gitx/a/b.git",
        GATEWAY + "/acme/widget.git")) {
      assertThat(urlMatch(file, "http.extraHeader", elsewhere)).as(elsewhere).isNull();
    }
  }

  /** No helper answers for any host, not even one the system config names. */
  @Test
  void gitIsGivenNoCredentialForAnyHost() throws IOException {
    Path system = dir.resolve("system-config");
    Files.writeString(system, "[credential]\n\thelper = \"!f() { echo password=LEAKED; }; f\"\n"
        + "[credential \"https://github.com\"]\n\thelper = \"!f() { echo password=LEAKED; }; f\"\n");
    RealGit run = git.globalConfig(write(RunGitConfig.of(GATEWAY, CREDENTIAL)
        .withFetchBaseUrl(FORGE))).with("GIT_CONFIG_NOSYSTEM", null)
        .with("GIT_CONFIG_SYSTEM", system.toString()).with("GH_TOKEN", READ_TOKEN);
    assertNoCredential(fill(run, "https", "github.com", "acme/widget.git"));
    assertNoCredential(fill(run, "http", "127.0.0.1:7070", "forge/acme/widget.git"));
    assertNoCredential(fill(run, "http", "127.0.0.1:7070", "git/github.com/acme/widget.git"));
    assertThat(Files.readString(write(RunGitConfig.of(GATEWAY, CREDENTIAL))))
        .doesNotContain(READ_TOKEN).doesNotContain("GH_TOKEN");
  }

  /**
   * Over the wire, in local-forge mode: git fetches and pushes a GitHub URL, and fetches a forge
   * URL, all at the gateway with the run credential header; the forge is never asked, and the
   * read token in the environment is sent nowhere, even after a 401.
   */
  @Test
  void gitSendsOnlyTheRunCredentialAndOnlyToTheGateway() throws IOException {
    List<String> seen = new CopyOnWriteArrayList<>();
    HttpServer server = HttpServer.create(
        new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", exchange -> {
      String auth = exchange.getRequestHeaders().getFirst("Authorization");
      seen.add(exchange.getRequestURI().getPath() + " " + auth);
      exchange.getResponseHeaders().add("WWW-Authenticate", "Basic realm=\"test\"");
      exchange.sendResponseHeaders(auth == null || auth.startsWith("Bearer") ? 401 : 403, -1);
      exchange.close();
    });
    server.start();
    try {
      String base = "http://127.0.0.1:" + server.getAddress().getPort();
      Path file = write(RunGitConfig.of(base, CREDENTIAL).withFetchBaseUrl(base + "/forge/"));
      RealGit run = git.globalConfig(file).with("GH_TOKEN", READ_TOKEN);
      Path repo = dir.resolve("repo");
      run.run(dir, "init", "-q", repo.toString()).ok();
      run.run(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q",
          "--allow-empty", "-m", "x").ok();

      RealGit.Result fetch = run.run(repo, "ls-remote", "https://github.com/acme/widget.git");
      RealGit.Result forge = run.run(repo, "ls-remote", base + "/forge/acme/widget.git");
      RealGit.Result push = run.run(repo, "push", "https://github.com/acme/widget.git",
          "HEAD:refs/heads/topic");
      assertThat(fetch.exit()).isNotZero();
      assertThat(forge.exit()).isNotZero();
      assertThat(push.exit()).isNotZero();

      assertThat(seen).contains("/git/github.com/acme/widget.git/info/refs Bearer " + CREDENTIAL);
      assertThat(seen).hasSizeGreaterThanOrEqualTo(3).allSatisfy(request ->
          assertThat(request).startsWith("/git/github.com/acme/widget.git/")
              .endsWith(" Bearer " + CREDENTIAL).doesNotContain(READ_TOKEN)
              .doesNotContain("Basic"));
      assertThat(fetch.stderr()).contains("terminal prompts disabled");
      assertThat(push.stderr()).contains("terminal prompts disabled");
    } finally {
      server.stop(0);
    }
  }

  /** The empty {@code extraHeader} drops headers a less specific config would add. */
  @Test
  void inheritedExtraHeadersDoNotReachTheGateway() throws IOException {
    Path system = dir.resolve("system-config");
    Files.writeString(system, "[http]\n\textraHeader = X-Inherited: 1\n");
    List<String> seen = new CopyOnWriteArrayList<>();
    HttpServer server = HttpServer.create(
        new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", exchange -> {
      seen.add(exchange.getRequestURI().getPath().split("/")[1] + " "
          + exchange.getRequestHeaders().get("X-Inherited") + " "
          + exchange.getRequestHeaders().get("Authorization"));
      exchange.sendResponseHeaders(404, -1);
      exchange.close();
    });
    server.start();
    try {
      String base = "http://127.0.0.1:" + server.getAddress().getPort();
      RealGit run = git.globalConfig(write(RunGitConfig.of(base, CREDENTIAL)))
          .with("GIT_CONFIG_NOSYSTEM", null).with("GIT_CONFIG_SYSTEM", system.toString());
      run.run(dir, "ls-remote", base + "/git/github.com/acme/widget.git");
      run.run(dir, "ls-remote", base + "/forgeless/acme/widget.git");
      assertThat(seen).containsExactly("git null [Bearer " + CREDENTIAL + "]",
          "forgeless [1] null");
    } finally {
      server.stop(0);
    }
  }

  @Test
  void writesAFreshOwnerOnlyFileAndLeavesNothingElse() throws IOException {
    Path target = dir.resolve("run.gitconfig");
    Files.writeString(target, "old");
    Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rw-r--r--"));
    Object oldInode = Files.getAttribute(target, "unix:ino");
    RunGitConfig config = RunGitConfig.of(GATEWAY, CREDENTIAL);

    GitConfigFile.write(target, config);

    assertThat(Files.readString(target)).isEqualTo(GitConfigFile.render(config));
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(target)))
        .isEqualTo("rw-------");
    assertThat(Files.getAttribute(target, "unix:ino")).isNotEqualTo(oldInode);
    try (var files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactly("run.gitconfig");
    }
  }

  @Test
  void replacesASymlinkRatherThanWritingThroughIt() throws IOException {
    Path elsewhere = dir.resolve("elsewhere");
    Files.writeString(elsewhere, "keep");
    Path target = dir.resolve("run.gitconfig");
    Files.createSymbolicLink(target, elsewhere);

    GitConfigFile.write(target, RunGitConfig.of(GATEWAY, CREDENTIAL));

    assertThat(Files.readString(elsewhere)).isEqualTo("keep");
    assertThat(Files.isSymbolicLink(target)).isFalse();
    assertThat(Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)).isTrue();
  }

  @Test
  void failsIntoAMissingDirectory() {
    assertThatThrownBy(() -> GitConfigFile.write(dir.resolve("missing/run.gitconfig"),
        RunGitConfig.of(GATEWAY, CREDENTIAL))).isInstanceOf(NoSuchFileException.class);
  }

  /**
   * Seeded random credentials and gateway paths: each is refused with a message that does not
   * contain it, or git reads back exactly what went in. Many configs share one file.
   */
  @Test
  void fuzzedCredentialsAndBaseUrlsReadBackExactlyOrAreRefused() throws IOException {
    Fuzz fuzz = new Fuzz(99L);
    StringBuilder text = new StringBuilder();
    List<String> expected = new ArrayList<>();
    int accepted = 0;
    int refused = 0;
    String visible = "abcXYZ019-._~+/=\"\\#;$`'!%&*(){}[]<>|:,@^";
    for (int i = 0; i < 300; i++) {
      String credential = i % 2 == 0 ? fuzz.string(20) : fuzz.from(visible, 1, 30);
      // '?' and '#' would start a query or fragment: refused in a base URL
      String path = fuzz.from(visible.replace("@", "").replace("#", ""), 0, 12);
      String gateway = "http://127.0.0.1:7070/" + path;
      RunGitConfig config;
      try {
        config = RunGitConfig.of(gateway, credential);
      } catch (IllegalArgumentException e) {
        assertThat(credential.chars().anyMatch(c -> c < 0x21 || c > 0x7e) || credential.isEmpty())
            .as("refused %s", UntrustedText.printable(credential)).isTrue();
        if (credential.length() > 3) {
          assertThat(e.getMessage()).doesNotContain(credential);
        }
        refused++;
        continue;
      }
      text.append(GitConfigFile.render(config));
      expected.addAll(expectedEntries(config.gatewayBaseUrl(), "github.com", credential, null));
      accepted++;
    }
    Path file = dir.resolve("fuzz.gitconfig");
    Files.writeString(file, text);
    assertThat(git.list(file)).containsExactlyElementsOf(expected);
    assertThat(accepted).isGreaterThan(100);
    assertThat(refused).isGreaterThan(50);
  }

  // what git --list must print, written out independently of the renderer
  private static List<String> expectedEntries(String gateway, String host, String credential,
      String forge) {
    String gatewayHost = gateway + "/git/" + host + "/";
    List<String> forms = new ArrayList<>(spellings(host));
    if (forge != null) {
      forms.add(forge);
    }
    List<String> out = new ArrayList<>();
    forms.forEach(f -> out.add("url." + gatewayHost + ".pushinsteadof=" + f));
    forms.forEach(f -> out.add("url." + gatewayHost + ".insteadof=" + f));
    out.add("http." + gateway + "/git/.extraheader=");
    out.add("http." + gateway + "/git/.extraheader=Authorization: Bearer " + credential);
    for (String h : List.of(host, "*." + host)) {
      for (String scheme : List.of("https", "http")) {
        out.add("http." + scheme + "://" + h + "/.proxy=" + GitHost.of(host).refusingProxy());
      }
    }
    out.add("protocol.git.allow=never");
    out.add("credential.helper=");
    out.add("core.sshcommand=" + SshPushGuard.command(GitHost.of(host)));
    out.add("ssh.variant=ssh");
    out.add("user.name=pushgate agent");
    out.add("user.email=agent@pushgate.invalid");
    out.add("branch.autosetupmerge=false");
    out.add("push.default=current");
    return out;
  }

  /** Every prefix git may be handed for a repository of {@code host}, as a person lists them. */
  private static List<String> spellings(String host) {
    List<String> out = new ArrayList<>();
    for (String h : List.of(host, host + ".")) {
      out.addAll(List.of("https://" + h + "/", "https://" + h + ":443/", "http://" + h + "/",
          "http://" + h + ":80/"));
    }
    for (String h : List.of(host, host + ".")) {
      for (String user : List.of("", "git@")) {
        for (String scheme : List.of("ssh", "git+ssh", "ssh+git")) {
          out.add(scheme + "://" + user + h + "/");
          out.add(scheme + "://" + user + h + ":22/");
        }
        out.add(user + h + ":");
        out.add(user + "[" + h + "]:");
      }
    }
    return out;
  }

  private Path write(RunGitConfig config) throws IOException {
    Path file = dir.resolve("run-" + System.nanoTime() + ".gitconfig");
    GitConfigFile.write(file, config);
    return file;
  }

  private Path repoWithRemotes(Path globalConfig) {
    Path repo = dir.resolve("repo-" + System.nanoTime());
    RealGit run = git.globalConfig(globalConfig);
    run.run(dir, "init", "-q", repo.toString()).ok();
    run.run(repo, "remote", "add", "https", "https://github.com/acme/widget.git").ok();
    run.run(repo, "remote", "add", "scp", "git@github.com:acme/widget.git").ok();
    run.run(repo, "remote", "add", "ssh", "ssh://git@github.com/acme/widget").ok();
    run.run(repo, "remote", "add", "forge", FORGE + "acme/widget.git").ok();
    run.run(repo, "remote", "add", "other", "https://gitlab.com/acme/widget.git").ok();
    return repo;
  }

  private String pushUrl(Path globalConfig, Path repo, String remote) {
    return git.globalConfig(globalConfig).run(repo, "remote", "get-url", "--push", remote).ok()
        .out().strip();
  }

  private String fetchUrl(Path globalConfig, Path repo, String remote) {
    return git.globalConfig(globalConfig).run(repo, "remote", "get-url", remote).ok().out()
        .strip();
  }

  /** {@code git config --get-urlmatch}, or null when nothing matches. */
  private String urlMatch(Path file, String key, String url) {
    RealGit.Result r = git.run(dir, "config", "--file", file.toString(), "--get-urlmatch", key,
        url);
    if (r.exit() == 1) {
      return null;
    }
    return r.ok().out().strip();
  }

  private RealGit.Result fill(RealGit run, String protocol, String host, String path) {
    return run.runWithInput(dir, "protocol=" + protocol + "\nhost=" + host + "\npath=" + path
        + "\n\n", "credential", "fill");
  }

  private static void assertNoCredential(RealGit.Result r) {
    assertThat(r.exit()).as("git credential fill answered: %s", r.out()).isNotZero();
    assertThat(r.out()).doesNotContain("password=");
    assertThat(r.stderr()).contains("terminal prompts disabled");
  }
}
