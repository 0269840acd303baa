package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.pushgate.gateway.api.ApiSentinel;
import dev.pushgate.it.PushgateExec.Result;
import dev.pushgate.it.PushgateExec.Started;
import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.EnvListing;
import dev.pushgate.testkit.RunningAppliance;
import dev.pushgate.testkit.Wait;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code pushgate exec} end to end on this Linux host: the real jar, the real git CLI, and real
 * bubblewrap (CI installs it and sets SANDBOX_REQUIRE_BWRAP=1, so a missing bwrap fails here).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExecTest {
  @RegisterExtension
  static final ApplianceExtension app = ExecRules.appliance();

  PushgateExec launcher;
  Path rules;

  @BeforeAll
  void start() throws Exception {
    rules = ExecRules.mainDenied(app);
    // Searchable by the sandbox user (nobody, as these tests run as root in CI).
    launcher = PushgateExec.on(app.get().dataDir, app.dir().resolve("home")).withDenyLayer();
  }

  @Test
  void aCommandInsideBwrapClonesCommitsPushesABranchAndIsRefusedMainThenEverythingIsRevoked()
      throws Exception {
    Path work = Files.createDirectories(app.dir().resolve("work-push"));
    ObjectId mainBefore = forgeRef("refs/heads/main");
    Result exec;
    // The run is a sandboxed chat run: its branch push asks, as the hook asks without a sandbox.
    try (AllowingApprover approver = AllowingApprover.connect(app.get())) {
      exec = launcher.run(work, Map.of("FORGE_URL", app.get().forgeUrl("acme/widget")),
        "--workdir", work.toString(), "--rules", rules.toString(), "--pass-env", "FORGE_URL",
        "--", "sh", "-c", """
            set -e
            id -u
            grep -q ' /proc/sys ro,' /proc/self/mountinfo && echo proc-sys-read-only
            git clone -q https://github.com/acme/widget.git widget
            cd widget
            printf %s "$GH_TOKEN" > ../token.txt
            echo "sentinel-read $(curl -s -o /dev/null -w '%{http_code}' \
              -u "x-access-token:$GH_TOKEN" "$FORGE_URL/info/refs?service=git-upload-pack")"
            if printf 'url=%s\n\n' "$FORGE_URL" | env -u GH_TOKEN git credential fill \
              2>/dev/null | grep -q '^password=.'; then echo credential-helper-answers;
            else echo no-credential-helper; fi
            echo change > change.txt
            git add change.txt
            git commit -qm change
            git rev-parse HEAD > ../head.txt
            git push -q origin HEAD:feature
            if git push origin HEAD:main; then exit 9; fi
            echo done
            """);
    }
    assertThat(exec.exit()).as(exec.stderr()).isZero();
    String[] out = exec.stdout().split("\n");
    assertThat(out[0]).isNotEqualTo("0");
    // The clone went through the gateway over the bridge; git has no credential to give anyone,
    // and the run's GH_TOKEN, a sentinel, reads nothing straight from the forge while it lives.
    assertThat(out).contains("proc-sys-read-only", "no-credential-helper", "sentinel-read 401",
            "done")
        .doesNotContain("credential-helper-answers");
    assertThat(exec.stderr()).contains("under bubblewrap")
        .contains("! [remote rejected] HEAD -> main (Control Center policy: push to main is denied)");

    ObjectId head = ObjectId.fromString(Files.readString(work.resolve("head.txt")).strip());
    assertThat(forgeRef("refs/heads/feature")).isEqualTo(head);
    assertThat(forgeRef("refs/heads/main")).isEqualTo(mainBefore);

    // The run ended with the command: nothing of it is live, the read token the appliance kept
    // for it included; what the command held was only the sentinel.
    String runId = exec.runId();
    assertThat(exec.stderr()).contains("pushgate: run " + runId + " ended: ");
    String token = Files.readString(work.resolve("token.txt"));
    assertThat(token).startsWith(ApiSentinel.PREFIX);
    assertThat(Forge.fetchStatus(app.get(), "acme/widget", token)).isEqualTo(401);
    assertThat(Forge.liveCredentials(app.get(), runId)).isZero();
    assertThat(app.get().control().get("/v1/runs/" + runId).body().get("state").asText())
        .isEqualTo("ended");
    // The worktree is given back to its owner.
    assertThat(Files.getAttribute(work.resolve("widget/change.txt"), "unix:uid",
        LinkOption.NOFOLLOW_LINKS)).isEqualTo(Files.getAttribute(work, "unix:uid"));
  }

  @Test
  void theEnvironmentInsideHasNoneOfTheStrippedVariablesEvenWhenTheCallerSetThem()
      throws Exception {
    Path cwd = Files.createDirectories(app.dir().resolve("cwd-env"));
    Map<String, String> env = new LinkedHashMap<>();
    env.put("LD_LIBRARY_PATH", "/nonexistent/lib");
    env.put("NODE_OPTIONS", "--require /nonexistent/evil.js");
    env.put("GIT_SSH_COMMAND", "ssh -o ProxyCommand=evil");
    env.put("BASH_ENV", "/nonexistent/bashenv");
    env.put("PYTHONPATH", "/nonexistent/py");
    env.put("GIT_CONFIG_COUNT", "1");
    env.put("GIT_CONFIG_KEY_0", "core.hooksPath");
    env.put("GIT_CONFIG_VALUE_0", "/nonexistent/hooks");
    env.put("GITHUB_TOKEN", "ghp_theCallersOwnToken");
    env.put("GH_TOKEN", "ghp_theCallersOwnToken");
    env.put("PUSHGATE_IT_MARKER", "kept");
    // Issue 14, item 6: secrets of the operator's with names no denylist knows, and a harmless
    // name nobody passed, never reach the agent; a name passed with --pass-env does.
    env.put("AWS_SECRET_ACCESS_KEY", "aws-secret-of-the-operator");
    env.put("VAULT_TOKEN", "hvs.operatorsVaultToken");
    env.put("GITHUB_PAT", "ghp_operatorsPersonalToken");
    env.put("PUSHGATE_DATABASE_URL", "postgresql://pushgate:hunter2@db.internal/pushgate");
    env.put("EDITOR", "vi");
    env.put("LC_ALL", "C.UTF-8");
    // No --workdir: exec clones ./widget first, inside the sandbox.
    Result exec = launcher.run(cwd, env, "--rules", rules.toString(), "--pass-env",
        "PUSHGATE_IT_MARKER",
        "--", "sh", "-c", "env; test -d .git && echo cloned-into-workdir");
    assertThat(exec.exit()).as(exec.stderr()).isZero();
    assertThat(exec.stderr()).contains("pushgate: cloning acme/widget into "
        + cwd.resolve("widget"));
    Map<String, String> inside = EnvListing.parse(exec.stdout());
    assertThat(inside).doesNotContainKeys("LD_PRELOAD", "LD_LIBRARY_PATH", "NODE_OPTIONS",
        "GIT_SSH_COMMAND", "BASH_ENV", "PYTHONPATH", "GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0",
        "GIT_CONFIG_VALUE_0", "AWS_SECRET_ACCESS_KEY", "VAULT_TOKEN", "GITHUB_PAT",
        "PUSHGATE_DATABASE_URL", "EDITOR");
    assertThat(exec.stdout()).doesNotContain("aws-secret").doesNotContain("hvs.")
        .doesNotContain("ghp_").doesNotContain("hunter2");
    // GH_TOKEN and GITHUB_TOKEN inside are the run's sentinel, never the caller's token.
    assertThat(inside.get("GH_TOKEN")).startsWith(ApiSentinel.PREFIX);
    assertThat(inside.get("GITHUB_TOKEN")).isEqualTo(inside.get("GH_TOKEN"));
    assertThat(inside).containsEntry("PUSHGATE_IT_MARKER", "kept")
        .containsEntry("LC_ALL", "C.UTF-8").containsEntry("GIT_AUTHOR_NAME", "Agent");
    // The sandbox's own writable git config, which includes the run's (docs/sandbox.md).
    assertThat(inside.get("GIT_CONFIG_GLOBAL")).isEqualTo("/run/pushgate-git/config");
    assertThat(exec.stdout()).contains("cloned-into-workdir");
    assertThat(cwd.resolve("widget/README.md")).exists();
  }

  /**
   * Issue 17: with the name-deny layer the default rules (.env, *.key, *.pem) launch under real
   * bubblewrap; the denied names fail inside with EACCES and are reported as violations, the
   * rest of the work (a commit) goes on, and the run leaves no mount and no daemon behind.
   */
  @Test
  void withTheDefaultRulesAndTheLayerDeniedNamesFailAndAreReportedAndNothingIsLeft()
      throws Exception {
    RunningAppliance.assumeDenyfs();
    Path work = Files.createDirectories(app.dir().resolve("work-default-rules"));
    Result exec = launcher.run(work, Map.of(), "--workdir", work.toString(), "--", "sh", "-c", """
        set -e
        git clone -q https://github.com/acme/widget.git widget
        cd widget
        denied() { if "$@" 2>../err.txt; then echo "written: $*"; else cat ../err.txt; fi; }
        denied sh -c 'echo s > .env'
        denied sh -c 'echo s > x.pem'
        echo k > plain.txt
        denied mv plain.txt a.key
        echo ok > ok.txt
        git add ok.txt plain.txt
        git commit -qm ok
        echo committed
        """);
    assertThat(exec.exit()).as(exec.stderr()).isZero();
    Path widget = work.resolve("widget");
    assertThat(exec.stdout()).as(exec.stderr()).doesNotContain("written:")
        .contains("committed");
    assertThat(exec.stdout().lines().filter(l -> l.contains("Permission denied")).count())
        .as(exec.stdout()).isEqualTo(3);
    assertThat(exec.stderr()).contains("under bubblewrap")
        .contains("pushgate: sandbox violation: file-write* \"" + widget.resolve(".env") + "\"\n")
        .contains("pushgate: sandbox violation: file-write* \"" + widget.resolve("x.pem") + "\"\n")
        .contains("pushgate: sandbox violation: file-write* \"" + widget.resolve("a.key") + "\"\n");
    assertThat(widget.resolve(".env")).doesNotExist();
    assertThat(widget.resolve("x.pem")).doesNotExist();
    assertThat(widget.resolve("a.key")).doesNotExist();
    assertThat(widget.resolve("ok.txt")).hasContent("ok");
    try (Repository repo = new FileRepository(widget.resolve(".git").toFile())) {
      assertThat(repo.parseCommit(repo.resolve("HEAD")).getShortMessage()).isEqualTo("ok");
    }
    // Nothing left: no FUSE mount of the layer in this mount namespace (the launcher's), and no
    // daemon serving this run's workdir.
    List<String> mounts = Files.readAllLines(Path.of("/proc/self/mountinfo")).stream()
        .filter(l -> l.contains("pushgate-denyfs") && l.contains(app.dir().toString())).toList();
    assertThat(mounts).isEmpty();
    assertThat(denyfsDaemonsUnder(app.dir())).isEmpty();
  }

  /**
   * Issue 30: the path of a violation is the agent's choice, so exec prints it quoted as data: an
   * escape sequence in it repaints no terminal, and a line break in it forges no line of
   * pushgate's own.
   */
  @Test
  void aHostileFileNameIsQuotedInTheViolationLine() throws Exception {
    RunningAppliance.assumeDenyfs();
    Path work = Files.createDirectories(app.dir().resolve("work-hostile-name"));
    Result exec = launcher.run(work, Map.of(), "--workdir", work.toString(), "--", "sh", "-c", """
        echo x > "$(printf '/usr/\033[2Kforged')"
        { printf k > "$(printf 'a\npushgate: sandbox violation: none\nb.pem')"; } 2>/dev/null
        true
        """);
    assertThat(exec.exit()).as(exec.stderr()).isZero();
    List<String> ours = exec.stderr().lines().filter(l -> l.startsWith("pushgate:")).toList();
    assertThat(ours).as(exec.stderr())
        .contains("pushgate: sandbox violation: file-write* \"/usr/\\u001b[2Kforged\"")
        .contains("pushgate: sandbox violation: file-write* \""
            + work.resolve("a\\\\x0apushgate: sandbox violation: none\\\\x0ab.pem") + "\"")
        .noneMatch(l -> l.contains("\u001b"))
        .doesNotContain("pushgate: sandbox violation: none");
  }

  /**
   * Issue 29: the sandbox denies the same list of secret files the push refuses, exceptions
   * included: {@code id_rsa} and {@code .env.local} fail inside, {@code .env.example} is
   * written, and renaming the template onto a denied name fails too.
   */
  @Test
  void theSecretFilesListIsDeniedInTheSandboxAndItsTemplatesAreWritable() throws Exception {
    RunningAppliance.assumeDenyfs();
    Path work = Files.createDirectories(app.dir().resolve("work-secret-files"));
    Result exec = launcher.run(work, Map.of(), "--workdir", work.toString(), "--", "sh", "-c", """
        denied() { if "$@" 2>err.txt; then echo "written: $*"; else cat err.txt; fi; }
        denied sh -c 'echo k > id_rsa'
        denied sh -c 'echo DB=x > .env.local'
        echo 'DB_URL=postgres://app:${DB_PASSWORD}@db/app' > .env.example && echo template-written
        denied mv .env.example .env.production
        rm -f err.txt
        """);
    assertThat(exec.exit()).as(exec.stderr()).isZero();
    assertThat(exec.stdout()).as(exec.stderr()).doesNotContain("written:")
        .contains("template-written");
    assertThat(exec.stdout().lines().filter(l -> l.contains("Permission denied")).count())
        .as(exec.stdout()).isEqualTo(3);
    assertThat(exec.stderr())
        .contains("pushgate: sandbox violation: file-write* \"" + work.resolve("id_rsa") + "\"\n")
        .contains("pushgate: sandbox violation: file-write* \""
            + work.resolve(".env.local") + "\"\n")
        .contains("pushgate: sandbox violation: file-write* \""
            + work.resolve(".env.production") + "\"\n");
    assertThat(work.resolve("id_rsa")).doesNotExist();
    assertThat(work.resolve(".env.local")).doesNotExist();
    assertThat(work.resolve(".env.production")).doesNotExist();
    assertThat(work.resolve(".env.example")).hasContent(
        "DB_URL=postgres://app:${DB_PASSWORD}@db/app");
  }

  /**
   * Issue 32: {@code java -jar pushgate.jar exec} given no {@code -Dpushgate.denyfs} and no
   * helper on its PATH, against an appliance that has the layer, finds the helper beside its jar
   * as {@code ./pushgate} and {@code bin/pushgate} pass it: the layer the plan says is enforced is
   * mounted, never "enforced" followed by a refusal.
   */
  @Test
  void execWithoutTheHelperOnItsPathFindsItBesideTheJarAndTheLayerIsApplied() throws Exception {
    RunningAppliance.assumeDenyfs();
    Path work = Files.createDirectories(app.dir().resolve("work-helper-beside-jar"));
    Files.setPosixFilePermissions(work, PosixFilePermissions.fromString("rwxrwxrwx"));
    Result exec = PushgateExec.on(app.get().dataDir, app.dir().resolve("home")).run(work,
        Map.of("PATH", "/usr/local/bin:/usr/bin:/bin"), "--workdir", work.toString(), "--", "sh",
        "-c", "if echo s > .env 2>/dev/null; then echo written; else echo refused; fi");
    assertThat(exec.exit()).as(exec.stderr()).isZero();
    assertThat(exec.stdout()).isEqualTo("refused\n");
    assertThat(exec.stderr()).doesNotContain("not launched")
        .contains("pushgate: sandbox violation: file-write* \"" + work.resolve(".env") + "\"\n");
    assertThat(work.resolve(".env")).doesNotExist();
  }

  /** The live pushgate-denyfs daemons whose source ({@code --source DIR}) is under {@code dir}. */
  private static List<String> denyfsDaemonsUnder(Path dir) throws IOException {
    List<String> found = new ArrayList<>();
    try (var procs = Files.list(Path.of("/proc"))) {
      for (Path proc : procs.toList()) {
        if (!proc.getFileName().toString().matches("\\d+")) {
          continue;
        }
        String text;
        try {
          text = new String(Files.readAllBytes(proc.resolve("cmdline")), StandardCharsets.UTF_8)
              .replace('\0', ' ');
        } catch (IOException e) {
          continue; // the process ended meanwhile
        }
        if (text.split(" ")[0].endsWith("pushgate-denyfs")
            && text.contains("--source " + dir)) {
          found.add(proc.getFileName() + ": " + text);
        }
      }
    }
    return found;
  }

  /** Without the layer (not built here) the default rules cannot be held, and exec says so. */
  @Test
  void withTheDefaultRulesExecRefusesToLaunchSaysWhyAndNothingRuns() throws Exception {
    Assumptions.assumeTrue(RunningAppliance.denyfs().isEmpty(),
        "the layer is built: SandboxPlanTest checks the refusal on an appliance without it");
    Path work = Files.createDirectories(app.dir().resolve("work-refused"));
    int liveBefore = app.get().control().get("/v1/runs").body().get("runs").size();
    int recordedBefore = Forge.recordedRuns(app.get());
    int tokensBefore = Forge.liveForgeTokens(app.get());
    Result exec = launcher.run(work, Map.of(), "--workdir", work.toString(), "--",
        "touch", work.resolve("ran.txt").toString());
    assertThat(exec.exit()).isEqualTo(125);
    assertThat(exec.stderr())
        .contains("pushgate: not launched: bubblewrap cannot deny creating .env inside a"
            + " writable mount")
        .contains("denyWriteGlobs")
        .contains("--sandbox off");
    assertThat(work.resolve("ran.txt")).doesNotExist();
    assertThat(exec.stdout()).isEmpty();
    // Issue 14, item 16: a run that may not launch was never created, so nothing was issued.
    assertThat(exec.stderr()).doesNotContain("pushgate: run run_");
    assertThat(Forge.recordedRuns(app.get())).isEqualTo(recordedBefore);
    assertThat(Forge.liveForgeTokens(app.get())).isEqualTo(tokensBefore);
    assertThat(app.get().control().get("/v1/runs").body().get("runs").size()).isEqualTo(liveBefore);
  }

  /**
   * Issue 14, item 6: a value whose name looks harmless used to be put on bubblewrap's command
   * line, which every local user can read in {@code /proc/PID/cmdline}.
   */
  @Test
  void noEnvironmentValueIsOnAnyCommandLineWhileTheSandboxRuns() throws Exception {
    Path work = Files.createDirectories(app.dir().resolve("work-cmdline"));
    String marker = "pushgate-it-value-" + System.nanoTime();
    Started started = launcher.start(work, Map.of("PUSHGATE_IT_MARKER", marker, "LANG", marker),
        "--workdir", work.toString(), "--rules", rules.toString(),
        "--pass-env", "PUSHGATE_IT_MARKER", "--", "sh", "-c",
        "test \"$PUSHGATE_IT_MARKER\" = \"$LANG\" && echo marker-inside;"
            + " touch ready; while [ ! -e go ]; do sleep 0.05; done");
    try {
      awaitFile(work.resolve("ready"), started);
      List<String> seen = new ArrayList<>();
      try (var procs = Files.list(Path.of("/proc"))) {
        for (Path proc : procs.toList()) {
          Path cmdline = proc.resolve("cmdline");
          if (!proc.getFileName().toString().matches("\\d+") || !Files.isReadable(cmdline)) {
            continue;
          }
          String text;
          try {
            text = new String(Files.readAllBytes(cmdline), StandardCharsets.UTF_8);
          } catch (IOException e) {
            continue; // the process ended meanwhile
          }
          if (text.contains("bwrap")) {
            seen.add(text.replace('\0', ' '));
          }
          assertThat(text).as("the command line of pid " + proc.getFileName())
              .doesNotContain(marker);
        }
      }
      assertThat(seen).as("bubblewrap's command line was looked at").isNotEmpty();
    } finally {
      Files.writeString(work.resolve("go"), "");
    }
    Result exec = PushgateExec.finish(started);
    assertThat(exec.exit()).as(exec.stderr()).isZero();
    assertThat(exec.stdout()).contains("marker-inside");
  }

  /**
   * Issue 14 review, group i: two execs lending the same workdir. The second used to record the
   * sandbox user as the "original" owner; whichever ended last gave the tree, {@code .git/config}
   * included, to {@code nobody} for good. The second launch is now refused, and the owner comes
   * back.
   */
  @Test
  void aSecondExecOnAWorkdirAlreadyLentIsRefusedAndTheOwnerComesBack() throws Exception {
    Path work = Files.createDirectories(app.dir().resolve("work-lent-twice"));
    git(work, "init", "-q");
    Path config = work.resolve(".git/config");
    assertThat(owner(work)).isZero();
    Started first = launcher.start(work, Map.of(), "--workdir", work.toString(), "--rules",
        rules.toString(), "--", "sh", "-c",
        "touch started-first; while [ ! -e go-first ]; do sleep 0.05; done");
    Started second = null;
    try {
      awaitFile(work.resolve("started-first"), first);
      // Lent to the first run's own user id (neither root nor a user the host shares).
      assertThat(owner(config)).isNotZero().isNotEqualTo(65534);
      second = launcher.start(work, Map.of(), "--workdir", work.toString(), "--rules",
          rules.toString(),
          "--", "sh", "-c", "touch started-second; while [ ! -e go-second ]; do sleep 0.05; done");
      Started waitingFor = second;
      Wait.until(Duration.ofSeconds(90), "the second exec to end or start",
          () -> !waitingFor.process().isAlive() || Files.exists(work.resolve("started-second")));
    } finally {
      // The first ends first, as in the review; the second (if it ran) after it.
      Files.writeString(work.resolve("go-first"), "");
    }
    Result firstExec = PushgateExec.finish(first);
    Files.writeString(work.resolve("go-second"), "");
    Result secondExec = PushgateExec.finish(second);

    // Before the fix the second ran, and this tree ended with uid 65534.
    for (Path p : List.of(work, work.resolve(".git"), config, work.resolve(".git/HEAD"),
        work.resolve("started-first"))) {
      assertThat(owner(p)).as("the owner of " + p).isZero();
    }
    assertThat(firstExec.exit()).as(firstExec.stderr()).isZero();
    assertThat(secondExec.exit()).as(secondExec.stderr()).isEqualTo(125);
    assertThat(secondExec.stderr())
        .containsPattern("pushgate: not launched: " + Pattern.quote(work.toString())
            + " is already lent to the sandbox user by run " + firstExec.runId()
            + " \\(pid \\d+\\); a directory is lent to one run at a time")
        .contains("pushgate:   - wait until that run has ended, then launch again")
        .contains("pushgate: run " + secondExec.runId() + " ended: ");
    assertThat(work.resolve("started-second")).doesNotExist();
  }

  private static void awaitFile(Path file, Started started) throws Exception {
    Wait.until(Duration.ofSeconds(90), "the sandboxed command to create " + file, () -> {
      if (Files.exists(file)) {
        return true;
      }
      if (!started.process().isAlive()) {
        fail("the sandboxed command never got ready:\n" + PushgateExec.read(started.err()));
      }
      return false;
    });
  }

  private static int owner(Path p) throws IOException {
    return (Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS);
  }

  private static void git(Path dir, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("git", "-C", dir.toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as(out).isZero();
  }

  private static ObjectId forgeRef(String ref) throws Exception {
    try (Repository r = new FileRepository(app.get().forgeRepo("acme/widget").toFile())) {
      var found = r.exactRef(ref);
      return found == null ? null : found.getObjectId();
    }
  }

  /** Skips without bwrap, socat and curl, or fails when SANDBOX_REQUIRE_BWRAP=1. */
  static void requireBwrap() {
    List<String> missing = new ArrayList<>();
    for (String tool : List.of("bwrap", "socat", "curl")) {
      boolean found = false;
      for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
        if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
          found = true;
        }
      }
      if (!found) {
        missing.add(tool);
      }
    }
    if (missing.isEmpty()) {
      return;
    }
    if ("1".equals(System.getenv("SANDBOX_REQUIRE_BWRAP"))) {
      fail("SANDBOX_REQUIRE_BWRAP=1 but this host lacks " + missing);
    }
    Assumptions.abort("this host lacks " + missing
        + "; set SANDBOX_REQUIRE_BWRAP=1 to fail instead");
  }
}
