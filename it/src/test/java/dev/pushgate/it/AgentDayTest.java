package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.Host;
import dev.pushgate.testkit.RunningAppliance;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 30: an agent's ordinary day inside {@code pushgate exec} under the default sandbox rules
 * (real bubblewrap, the name-deny layer with the default .env, *.key, *.pem denies, the local
 * forge), as the agent works it: clone, branch, commit with no identity of its own, set one,
 * {@code whoami}, push a branch, {@code git push -u} and a {@code git pull --rebase} with no
 * argument (the upstream stored through the name-deny layer's judge), a config edit refused with
 * its reason, list and view pull requests with {@code gh} and no {@code -R}
 * (gh 2.23's {@code pr create} reads the remotes whatever GH_REPO says: it is given {@code -R}),
 * a push to main refused with its reason, a write of .env refused with its reason handed to the
 * model by the {@code PostToolUse} hook. Each step's exit code and message is asserted, so a
 * regression in the day fails here.
 *
 * <p>The run is in chat mode, where the command policy asks before {@code git push} and
 * {@code gh pr create}; in the sandbox the hook lets them through to the gateway and the API
 * boundary, which ask as the hook would have (issue 28): the day has an approver who allows, and
 * a push with none connected is refused.
 */
class AgentDayTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The default sandbox rules (no denyWriteGlobs: .env, *.key, *.pem), main protected. */
  private static final String RULES = """
      open-pull-request: allow
      push:
        - refs: refs/heads/main
          decision: deny
          reason: push to main is denied
      """;

  /** Each step prints "== NAME EXIT" and then its output. */
  private static final String DAY = """
      set -u
      unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL
      export GH_PROMPT_DISABLED=1 GH_NO_UPDATE_NOTIFIER=1 NO_COLOR=1 GH_CONFIG_DIR=/tmp/gh-config
      step() { name=$1; shift; "$@" > /tmp/step.out 2>&1; echo "== $name $?"; cat /tmp/step.out; }
      exec 3>&2  # a step that writes here is read by the launcher, as a command's errors are
      step whoami whoami
      step user sh -c 'echo "$USER $LOGNAME"'
      step branch git switch -c feature/day
      echo day > day.txt
      step first-commit sh -c 'git add day.txt && git commit -qm "first commit" \
        && git log -1 --format="%an <%ae>"'
      step set-name git config --global user.name "Day Agent"
      step second-commit sh -c 'echo more >> day.txt && git commit -qam second \
        && git log -1 --format=%an'
      step push git push origin HEAD
      step push-u sh -c 'git push -u origin HEAD 2>&3'
      step upstream git rev-parse --abbrev-ref '@{upstream}'
      step pull git pull --rebase
      step config-edit git config core.hooksPath /tmp/hooks
      step pr-create gh pr create -R "$GH_REPO" --head feature/day --base main --title "Day" \
        --body "the agent's day"
      step pr-list gh pr list
      step pr-view gh pr view 1
      step push-main git push origin HEAD:main
      step env-file cp day.txt .env
      step mcp cat .mcp.json
      step vscode mkdir .vscode
      echo '{"tool_name":"Bash","tool_response":{"stderr":"mkdir: Permission denied"}}' >/tmp/post
      step why sh -c '/opt/pushgate/bin/pushgate-hook --post-tool-use </tmp/post'
      echo "== end"
      """;

  @RegisterExtension
  static final ApplianceExtension app = ApplianceExtension.serving()
      .forSandboxedRuns().withRepos("acme/widget");

  @BeforeAll
  static void start() throws Exception {
    ExecTest.requireBwrap();
    GitHubCliTest.requireGh();
    RunningAppliance.assumeDenyfs();
  }

  @Test
  void theOrdinaryDayRunsWithoutAFalseRefusalAndEveryRefusalSaysWhy() throws Exception {
    PushgateExec launcher = PushgateExec.on(app.get().dataDir,
        app.dir().resolve("home")).withDenyLayer();

    // Under the default rules (every push allowed), with no approver connected, a push to main
    // is refused as the hook refuses `git push` without a sandbox; with one who allows, it lands.
    Path lonely = Files.createDirectories(app.dir().resolve("lonely"));
    Files.setPosixFilePermissions(lonely, PosixFilePermissions.fromString("rwxrwxrwx"));
    Path defaults = Files.writeString(app.dir().resolve("default-rules.yaml"), "");
    PushgateExec.Result alone = launcher.run(lonely, Map.of(), "--rules", defaults.toString(),
        "--", "sh", "-c", "git commit -q --allow-empty -m lonely && git push origin HEAD:main");
    assertThat(alone.exit()).as(alone.stderr() + alone.stdout()).isNotZero();
    assertThat(alone.stdout() + alone.stderr()).contains("! [remote rejected] HEAD -> main"
        + " (Control Center policy: push to refs/heads/main needs approval in chat mode (no"
        + " approver is connected))");
    try (AllowingApprover approver = AllowingApprover.connect(app.get())) {
      Path checkout = lonely.resolve("widget");
      // Another run, so another sandbox user: git wants the first run's checkout named safe.
      PushgateExec.Result allowed = launcher.run(checkout, Map.of(), "--workdir",
          checkout.toString(), "--rules", defaults.toString(), "--", "git", "-c",
          "safe.directory=*", "push", "origin", "HEAD:main");
      assertThat(allowed.exit()).as(allowed.stderr() + allowed.stdout()).isZero();
      assertThat(approver.questions()).singleElement().asString()
          .contains("push to refs/heads/main needs approval in chat mode");
    }

    Path cwd = app.dir().resolve("agent");
    PushgateExec.Result exec;
    List<String> asked;
    try (AllowingApprover approver = AllowingApprover.connect(app.get())) {
      exec = runDay(cwd, DAY);
      asked = approver.questions();
    }
    assertThat(exec.exit()).as(exec.stderr() + exec.stdout()).isZero();
    assertThat(asked).as("the approver was asked about the branch push and the pull request")
        .hasSize(2);
    assertThat(asked.get(0)).contains("push to refs/heads/feature/day needs approval in chat mode");
    assertThat(asked.get(1)).contains("needs approval in chat mode");
    Map<String, Step> day = steps(exec.stdout());
    String all = exec.stdout() + "\n" + exec.stderr();
    assertThat(day).as(all).containsKey("end");

    if (Host.isRoot()) {
      // As root the sandbox runs as a user id of its own, which has a name inside.
      assertThat(day.get("whoami")).as(all).isEqualTo(new Step(0, "agent\n"));
      assertThat(day.get("user")).isEqualTo(new Step(0, "agent agent\n"));
    } else {
      assertThat(day.get("whoami").exit()).as(all).isZero();
    }
    assertThat(day.get("branch").exit()).as(all).isZero();
    assertThat(day.get("first-commit"))
        .isEqualTo(new Step(0, "pushgate agent <agent@pushgate.invalid>\n"));
    assertThat(day.get("set-name")).as(all).isEqualTo(new Step(0, ""));
    assertThat(day.get("second-commit")).isEqualTo(new Step(0, "Day Agent\n"));
    assertThat(day.get("push").exit()).as(all).isZero();
    assertThat(day.get("push").output()).contains("HEAD -> feature/day");
    // git push -u stores the upstream (the name-deny layer asked the launcher, which judged the
    // edit an upstream only), so a pull needs no argument; any other config edit is refused.
    assertThat(day.get("push-u").exit()).as(all).isZero();
    assertThat(day.get("push-u").output())
        .contains("branch 'feature/day' set up to track 'origin/feature/day'");
    assertThat(all).doesNotContain("could not write config file .git/config: Device");
    assertThat(day.get("upstream")).as(all).isEqualTo(new Step(0, "origin/feature/day\n"));
    assertThat(day.get("pull").exit()).as(all).isZero();
    assertThat(day.get("config-edit")).as(all).isEqualTo(new Step(4,
        "error: could not write config file .git/config: Permission denied\n"));
    assertThat(day.get("pr-create").exit()).as(all).isZero();
    assertThat(day.get("pr-create").output()).contains("/acme/widget/pull/1");
    assertThat(day.get("pr-list").exit()).as(all).isZero();
    assertThat(day.get("pr-list").output()).contains("Day");
    assertThat(day.get("pr-view").exit()).as(all).isZero();
    assertThat(day.get("pr-view").output()).contains("the agent's day");
    assertThat(day.get("push-main").exit()).isEqualTo(1);
    assertThat(day.get("push-main").output())
        .contains("(Control Center policy: push to main is denied)");
    assertThat(day.get("env-file").exit()).isEqualTo(1);
    assertThat(day.get("env-file").output()).contains("Permission denied");
    // A protected path that is not there reads as not there, and cannot be made.
    assertThat(day.get("mcp"))
        .isEqualTo(new Step(1, "cat: .mcp.json: No such file or directory\n"));
    assertThat(day.get("vscode").exit()).isEqualTo(1);
    assertThat(day.get("vscode").output()).contains("Permission denied");

    // The model hears why the write failed, through the PostToolUse hook.
    Step why = day.get("why");
    assertThat(why.exit()).as(all).isZero();
    JsonNode hook = JSON.readTree(why.output());
    assertThat(hook.path("hookSpecificOutput").path("hookEventName").asText())
        .isEqualTo("PostToolUse");
    Path checkout = cwd.resolve("widget");
    assertThat(hook.path("hookSpecificOutput").path("additionalContext").asText())
        .contains("file-write* \"" + checkout.resolve(".env") + "\": the run's rules deny writing a"
            + " file of this name");
    // The refused config edit: the model hears why, and what to do instead.
    String configReason = "\": a run may change the repository's .git/config only by adding"
        + " an upstream to a branch that has none (branch.BRANCH.remote naming a remote it has, branch.BRANCH.merge ="
        + " refs/heads/BRANCH: what git push -u and git branch --set-upstream-to write), since a"
        + " git on the host may read it while the run lives; git stored nothing, because it adds,"
        + " changes or removes a setting other than an upstream: \"core.hookspath\"; for a setting"
        + " of your own use git -c KEY=VALUE for one command or git config --global for the run";
    assertThat(hook.path("hookSpecificOutput").path("additionalContext").asText())
        .contains("file-write* \"" + checkout.resolve(".git/config") + configReason);
    // And the operator, on exec's own standard error; no bridge noise there.
    assertThat(exec.stderr())
        .contains("pushgate: sandbox violation: file-write* \"" + checkout.resolve(".env") + "\"\n"
            + "pushgate:   why: the run's rules deny writing a file of this name")
        .doesNotContain("Broken pipe");
    assertThat(checkout.resolve(".env")).doesNotExist();
  }

  /**
   * The dependency trees of the day: what a package manager puts beneath {@code site-packages/}
   * and {@code node_modules/} is not the agent's own file, so a package that ships a {@code .pem}
   * installs, as pip itself does (its vendored certifi has one). The agent's own key files stay
   * refused, so does carrying a dependency tree's file or directory out of it, and pushing one.
   */
  private static final String DEPENDENCIES = """
      set -u
      step() { name=$1; shift; "$@" > /tmp/step.out 2>&1; echo "== $name $?"; cat /tmp/step.out; }
      python3 - <<'PY'
      import base64, hashlib, zipfile
      files = {
          "pemkit/__init__.py": b"",
          "pemkit/ca.pem": b"-----BEGIN CERTIFICATE-----\\nMIIB\\n-----END CERTIFICATE-----\\n",
          "pemkit-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\\nName: pemkit\\nVersion: 1.0\\n",
          "pemkit-1.0.dist-info/WHEEL":
              b"Wheel-Version: 1.0\\nGenerator: hand\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
      }
      record = []
      for name, data in files.items():
          digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
          record.append(f"{name},sha256={digest},{len(data)}")
      record.append("pemkit-1.0.dist-info/RECORD,,")
      files["pemkit-1.0.dist-info/RECORD"] = ("\\n".join(record) + "\\n").encode()
      with zipfile.ZipFile("/tmp/pemkit-1.0-py3-none-any.whl", "w") as wheel:
          for name, data in files.items():
              wheel.writestr(name, data)
      PY
      mkdir -p /tmp/pemjs && cd /tmp/pemjs
      echo '{"name": "pemjs", "version": "1.0.0"}' > package.json
      echo 'not a key' > cert.pem
      npm pack --silent > /dev/null
      cd - > /dev/null
      step venv python3 -m venv .venv
      step pip .venv/bin/pip install --no-index --no-cache-dir --disable-pip-version-check \\
        /tmp/pemkit-1.0-py3-none-any.whl
      step pip-files sh -c 'head -1 .venv/lib/python3*/site-packages/pemkit/ca.pem'
      step npm npm install --offline --no-audit --no-fund /tmp/pemjs/pemjs-1.0.0.tgz
      step npm-files ls node_modules/pemjs
      step own-key sh -c 'echo x > own.pem'
      step own-key-below sh -c 'mkdir -p src && echo x > src/own.key'
      step carry-file mv node_modules/pemjs/cert.pem cert.pem
      step carry-link ln node_modules/pemjs/cert.pem cert.pem
      step carry-tree mv node_modules/pemjs carried
      step carry-all mv node_modules vendored
      step push-cert sh -c 'git switch -qc feature/deps && git add -f node_modules/pemjs/cert.pem \\
        && git commit -qm deps && git push origin HEAD'
      echo "== end"
      """;

  @Test
  void dependencyTreesBuildInTheCheckoutAndTheAgentsOwnKeysStayRefused() throws Exception {
    Path cwd = app.dir().resolve("agent-deps");
    PushgateExec.Result exec = runDay(cwd, DEPENDENCIES);
    String all = exec.stdout() + "\n" + exec.stderr();
    assertThat(exec.exit()).as(all).isZero();
    Map<String, Step> day = steps(exec.stdout());
    assertThat(day).as(all).containsKey("end");

    assertThat(day.get("venv")).as(all).isEqualTo(new Step(0, ""));
    assertThat(day.get("pip").exit()).as(all).isZero();
    assertThat(day.get("pip").output()).contains("Successfully installed pemkit-1.0");
    assertThat(day.get("pip-files")).as(all)
        .isEqualTo(new Step(0, "-----BEGIN CERTIFICATE-----\n"));
    assertThat(day.get("npm").exit()).as(all).isZero();
    assertThat(day.get("npm-files")).as(all).isEqualTo(new Step(0, "cert.pem\npackage.json\n"));

    for (String refused : new String[] {"own-key", "own-key-below", "carry-file", "carry-link",
        "carry-tree", "carry-all"}) {
      assertThat(day.get(refused).exit()).as(refused + "\n" + all).isNotZero();
      assertThat(day.get(refused).output()).as(refused).contains("Permission denied");
    }
    Path checkout = cwd.resolve("widget");
    assertThat(exec.stderr())
        .contains("pushgate: sandbox violation: file-write* \""
            + checkout.resolve("own.pem") + "\"\n"
            + "pushgate:   why: the run's rules deny writing a file of this name")
        .contains("pushgate: sandbox violation: file-write* \""
            + checkout.resolve("node_modules/pemjs") + "\"\n");
    assertThat(checkout.resolve("node_modules/pemjs/cert.pem")).isRegularFile();
    assertThat(checkout.resolve("own.pem")).doesNotExist();
    assertThat(checkout.resolve("carried")).doesNotExist();

    // What is pushed is judged by the push's content rules, wherever it was written.
    assertThat(day.get("push-cert").exit()).as(all).isEqualTo(1);
    assertThat(day.get("push-cert").output()).contains(
        "(Control Center policy: node_modules/pemjs/cert.pem matches \"no secret files\")");
  }

  /** Runs {@code script} in {@code pushgate exec} under {@link #RULES}, working in {@code cwd}. */
  private static PushgateExec.Result runDay(Path cwd, String script) throws Exception {
    Files.createDirectories(cwd);
    Files.setPosixFilePermissions(cwd, PosixFilePermissions.fromString("rwxrwxrwx"));
    Path rules = Files.writeString(cwd.resolveSibling(cwd.getFileName() + "-rules.yaml"), RULES);
    return PushgateExec.on(app.get().dataDir, app.dir().resolve("home")).withDenyLayer()
        .run(cwd, Map.of(), "--rules", rules.toString(), "--", "sh", "-c", script);
  }

  /** What one step of the day did. */
  record Step(int exit, String output) {}

  private static Map<String, Step> steps(String out) {
    Map<String, Step> steps = new LinkedHashMap<>();
    String[] parts = ("\n" + out).split("\n== ");
    for (int i = 1; i < parts.length; i++) {
      String part = parts[i];
      int nl = part.indexOf('\n');
      String head = nl < 0 ? part : part.substring(0, nl);
      String body = nl < 0 ? "" : part.substring(nl + 1);
      String[] h = head.split(" ");
      if (h.length == 2) {
        steps.put(h[0], new Step(Integer.parseInt(h[1]), body.isEmpty() ? "" : body + "\n"));
      } else {
        steps.put(h[0], new Step(0, ""));
      }
    }
    return steps;
  }
}
