package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.broker.GitHubApp;
import dev.pushgate.broker.GitHubAppConfig;
import dev.pushgate.broker.InstallationToken;
import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.FakeSecrets;
import dev.pushgate.testkit.GitRun;
import dev.pushgate.testkit.RunningAppliance;
import dev.pushgate.types.RepoSlug;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import okhttp3.OkHttpClient;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Content rules end to end: real git pushes through the appliance's gateway, judged on what their
 * new commits contain, refused in git's own output, and never a secret in what anyone is shown.
 */
class ContentRulesTest {
  private static final String REPO = "acme/widget";
  private static final String POLICY = "(Control Center policy: ";

  @RegisterExtension
  static final ApplianceExtension app = ApplianceExtension.serving().withRepos(REPO);

  /** Everything git printed for this test's pushes, searched for the secrets it planted. */
  private final List<String> gitOutput = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    String forge = "http://127.0.0.1:" + app.get().port() + "/forge";
    GitHubApp forgeApp = GitHubApp.create(
        GitHubAppConfig.of("1", app.get().dataDir.resolve("forge-app.pem"))
            .withApiBaseUrl(URI.create(forge + "/api/v3")).withGitHost(URI.create(forge)),
        new OkHttpClient(), Clock.systemUTC());
    InstallationToken t = forgeApp.issueWriteToken(RepoSlug.parse(REPO), OptionalLong.empty(),
        false);
    Path config = app.dir().resolve("direct.gitconfig");
    Files.writeString(config, "[credential]\n\thelper = \"!f() { test \\\"$1\\\" = get || exit 0;"
        + " echo username=x-access-token; echo password=$GH_TOKEN; }; f\"\n");
    GitRun direct = new GitRun(Files.createDirectories(app.dir().resolve("home-direct")),
        Map.of("GIT_CONFIG_GLOBAL", config.toString(), "GH_TOKEN", t.token().reveal()));
    direct.in(app.dir(), "clone", "-q", app.get().forgeUrl(REPO), "seed").ok();
    Path seed = app.dir().resolve("seed");
    write(seed, "README.md", "widget\n");
    write(seed, "notes.txt", "DEBUG=1\n");
    commitAll(direct, seed, "seed");
    direct.in(seed, "push", "-q", "origin", "HEAD:main").ok();
  }

  @Test
  void theDefaultRulesRefuseSecretFilesAndSecretsAndNothingShowsTheSecret() throws Exception {
    DefaultRun d = defaultRun("default");
    JsonNode run = d.run();
    GitRun git = d.git();
    Path work = d.work();
    String secret = FakeSecrets.githubPat();

    write(work, "src/app.py", "import os\nTOKEN = \"" + secret + "\"\n");
    commitAll(git, work, "app");
    assertRefused(git, work, "app", "src/app.py:2 holds a GitHub personal access token"
        + " (rule \"no secrets\", gitleaks id github-pat)");

    // Added, then deleted in a later commit of the same push: the first commit still brings it.
    write(work, "src/app.py", "import os\nTOKEN = os.environ[\"TOKEN\"]\n");
    commitAll(git, work, "read the token from the environment");
    assertRefused(git, work, "app-fixed", "src/app.py:2 holds a GitHub personal access token");

    git.in(work, "reset", "-q", "--hard", "origin/main").ok();
    write(work, "config/.env", "DEBUG=1\n");
    commitAll(git, work, "config");
    assertRefused(git, work, "env", "config/.env matches \"no secret files\")");

    // A rename of a file upstream already has, onto a denied name: the path is new.
    git.in(work, "reset", "-q", "--hard", "origin/main").ok();
    git.in(work, "mv", "notes.txt", ".env").ok();
    commitAll(git, work, "rename");
    assertRefused(git, work, "renamed", ".env matches \"no secret files\")");

    // Many commits: the one in the middle brings a secret.
    git.in(work, "reset", "-q", "--hard", "origin/main").ok();
    for (int n = 0; n < 200; n++) {
      write(work, "log/" + n + ".txt", n == 120 ? "key = " + FakeSecrets.awsAccessKey() + "\n"
          : "entry " + n + "\n");
      commitAll(git, work, "entry " + n);
    }
    assertRefused(git, work, "many", "log/120.txt:1 holds an AWS access key");

    String runId = run.get("runId").asText();
    String audit = app.get().control().get("/v1/audit?runId=" + runId).body().toString();
    assertThat(audit).contains("github-pat", "in commit ", "no secret files");
    String table = RunningAppliance.cli("audit", "--run", runId, "--data-dir",
        app.get().dataDir.toString());
    for (String planted : List.of(secret, FakeSecrets.awsAccessKey())) {
      assertThat(audit).doesNotContain(planted);
      assertThat(table).doesNotContain(planted);
      assertThat(app.get().logText()).doesNotContain(planted);
      assertThat(String.join("\n", gitOutput)).doesNotContain(planted);
    }
  }

  /**
   * Issues 29 and 30: the default rules refuse every file of the one list of secret files
   * ({@code .env.production}, an ssh private key, a PKCS #12 bundle), let the templates through
   * ({@code .env.example}, a public key), and still scan a template: a password inside a
   * connection URL is refused wherever it is. A secret-file name as a directory, or as what a
   * symlink points to, is refused too: the sandbox refuses making either.
   */
  @Test
  void theSecretFilesListIsRefusedItsTemplatesLandAndAUrlPasswordIsFoundInThem()
      throws Exception {
    DefaultRun d = defaultRun("secret-files");
    JsonNode run = d.run();
    GitRun git = d.git();
    Path work = d.work();
    String password = FakeSecrets.mixed(18, 29);
    String url = "postgres://app:" + password + "@db.example.com:5432/app";

    write(work, ".env.production", "DEBUG=0\n");
    commitAll(git, work, "production settings");
    assertRefused(git, work, "env-production",
        ".env.production matches \"no secret files\")");

    assertRefusedWith(git, work, ".env.production", "DEBUG=0\nDATABASE_URL=" + url + "\n",
        "env-production-url", ".env.production matches \"no secret files\")");

    assertRefusedWith(git, work, "deploy/id_ed25519", "not really a key\n",
        "ssh-key", "deploy/id_ed25519 matches \"no secret files\")");

    reset(git, work);
    Files.createDirectories(work.resolve("certs"));
    Files.write(work.resolve("certs/server.p12"), new byte[] {0x30, (byte) 0x82, 0, 1, 2, 0});
    commitAll(git, work, "certificate bundle");
    assertRefused(git, work, "p12", "certs/server.p12 matches \"no secret files\")");

    // Issue 29: what the sandbox refuses to make (mkdir .env, a symlink to .env) the push
    // refuses to bring, by the same list.
    assertRefusedWith(git, work, "config/.env/settings", "DEBUG=0\n",
        "env-dir", "config/.env/settings matches \"no secret files\")");

    assertRefusedWith(git, work, "id_rsa/key", "not really a key\n",
        "key-dir", "id_rsa/key matches \"no secret files\")");

    reset(git, work);
    Files.createSymbolicLink(work.resolve("settings"), Path.of(".env"));
    commitAll(git, work, "a symlink to a secret file");
    assertRefused(git, work, "env-link",
        "settings matches \"no secret files\" (a symlink to .env))");

    reset(git, work);
    write(work, ".env.example",
        "DEBUG=1\nDATABASE_URL=postgres://app:${DB_PASSWORD}@db.example.com:5432/app\n");
    write(work, "deploy/id_ed25519.pub", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI deploy\n");
    commitAll(git, work, "templates");
    assertLands(git, work, "templates");

    write(work, ".env.example", "DEBUG=1\nDATABASE_URL=" + url + "\n");
    commitAll(git, work, "a real password in the template");
    assertRefused(git, work, "template-url", ".env.example:2 holds a password in a connection"
        + " URL (rule \"no secrets\", pushgate id connection-url-password)");

    String runId = run.get("runId").asText();
    String audit = app.get().control().get("/v1/audit?runId=" + runId).body().toString();
    assertThat(audit).contains("connection-url-password");
    assertThat(audit).doesNotContain(password);
    assertThat(app.get().logText()).doesNotContain(password);
    assertThat(String.join("\n", gitOutput)).doesNotContain(password);
  }

  @Test
  void eachRuleKindIsAllowedAskedAndDenied() throws Exception {
    JsonNode run = app.get().createRun("""
        {"workspaceId": "ws-1", "mode": "chat", "repository": "acme/widget",
         "rules": {"push": "allow", "content": [
           {"name": "fixtures", "paths": ["tests/fixtures/**"], "decision": "allow"},
           {"name": "no keys", "files": ["*.key"], "decision": "deny"},
           {"name": "docs need a look", "paths": ["docs/**"], "decision": "ask"},
           {"name": "no big files", "maxSize": "4KiB", "decision": "deny"},
           {"name": "binaries need a look", "binary": true, "decision": "ask"},
           {"name": "no tokens", "secrets": ["github-pat", "npm-access-token"],
            "decision": "deny"}]}}""");
    GitRun git = new GitRun(Files.createDirectories(app.dir().resolve("home-kinds")),
        ForgeRefs.env(run));
    Path work = clone(git, "kinds");

    write(work, "tests/fixtures/token.txt", FakeSecrets.githubPat() + "\n" + "x".repeat(9000));
    write(work, "tests/fixtures/server.key", "fixture\n");
    commitAll(git, work, "fixtures");
    assertLands(git, work, "fixtures");

    assertRefusedWith(git, work, "deploy/server.key", "not a real key\n",
        "key", "deploy/server.key matches \"no keys\")");

    assertRefusedWith(git, work, "docs/guide.md", "# guide\n", "docs",
        "docs/guide.md matches \"docs need a look\" (no approver is connected))");

    assertRefusedWith(git, work, "data.csv", "1,2\n".repeat(2000),
        "data", "data.csv is larger than 4 KiB (rule \"no big files\"))");

    reset(git, work);
    Files.write(work.resolve("logo.png"), new byte[] {(byte) 0x89, 'P', 'N', 'G', 0, 0, 1});
    commitAll(git, work, "logo");
    assertRefused(git, work, "logo", "logo.png is a binary file (rule \"binaries need a look\")"
        + " (no approver is connected))");

    assertRefusedWith(git, work, "ci/publish.sh",
        "npm config set //registry.npmjs.org/:_authToken " + FakeSecrets.npm() + "\n", "publish",
        "ci/publish.sh:1 holds an npm access token (rule \"no tokens\", gitleaks id"
            + " npm-access-token))");

    // Not a kind this workspace looks for: the default set no longer applies.
    reset(git, work);
    write(work, "src/.env", "DEBUG=1\n");
    commitAll(git, work, "env");
    assertLands(git, work, "env");
  }

  private void assertRefused(GitRun git, Path work, String branch, String why)
      throws Exception {
    ObjectId before = ForgeRefs.ref(app.get(), REPO, "refs/heads/" + branch);
    GitRun.Result r = git.in(work, "push", "origin", "HEAD:" + branch).failed();
    gitOutput.add(r.stdout() + r.stderr());
    assertThat(r.stderr()).as(branch).contains("! [remote rejected] HEAD -> " + branch + " "
        + POLICY).contains(why);
    assertThat(ForgeRefs.ref(app.get(), REPO, "refs/heads/" + branch)).as(branch).isEqualTo(before);
  }

  /** Commits {@code file} alone on main and asserts its push to {@code branch} is refused. */
  private void assertRefusedWith(GitRun git, Path work, String file, String content,
      String branch, String why) throws Exception {
    reset(git, work);
    write(work, file, content);
    commitAll(git, work, file);
    assertRefused(git, work, branch, why);
  }

  private void assertLands(GitRun git, Path work, String branch) throws Exception {
    GitRun.Result r = git.in(work, "push", "origin", "HEAD:" + branch).ok();
    gitOutput.add(r.stdout() + r.stderr());
    assertThat(ForgeRefs.ref(app.get(), REPO, "refs/heads/" + branch)).isEqualTo(
        ObjectId.fromString(git.in(work, "rev-parse", "HEAD").ok().stdout().strip()));
  }

  /** A run with the default content rules (pushes allowed), its git, and its clone. */
  private record DefaultRun(JsonNode run, GitRun git, Path work) {}

  private static DefaultRun defaultRun(String name) throws Exception {
    JsonNode run = app.get().createRun("""
        {"workspaceId": "ws-1", "mode": "chat", "repository": "acme/widget",
         "rules": {"push": "allow"}}""");
    GitRun git = new GitRun(Files.createDirectories(app.dir().resolve("home-" + name)),
        ForgeRefs.env(run));
    return new DefaultRun(run, git, clone(git, name));
  }

  private static Path clone(GitRun git, String name) throws Exception {
    git.in(app.dir(), "clone", "-q", "https://github.com/acme/widget.git", name).ok();
    return app.dir().resolve(name);
  }

  private static void reset(GitRun git, Path work) throws Exception {
    git.in(work, "reset", "-q", "--hard", "origin/main").ok();
  }

  private static void write(Path work, String file, String content) throws Exception {
    Path p = work.resolve(file);
    Files.createDirectories(p.getParent());
    Files.writeString(p, content);
  }

  private static void commitAll(GitRun git, Path work, String message) throws Exception {
    git.in(work, "add", "-A").ok();
    git.in(work, "commit", "-q", "-m", message).ok();
  }
}
