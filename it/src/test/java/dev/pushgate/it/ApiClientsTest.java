package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.pushgate.testkit.FileTrees;
import dev.pushgate.testkit.RunningAppliance;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 32: the GitHub API clients an agent uses, none written here, work the first time through
 * both of a run's proxies (the egress proxy of {@code pushgate exec}'s bubblewrap sandbox and the
 * loopback one of a run without an OS sandbox): Octokit from npm behind undici's
 * {@code ProxyAgent} (which sends {@code CONNECT api.github.com:443} with {@code Host:
 * api.github.com}), Python {@code requests}, {@code gh} and curl. Each reads the repository,
 * opens an allowed pull request, is refused a denied one with the policy's message, and is
 * refused a merge.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ApiClientsTest {
  /** Installed by .ci/run with {@code npm ci} from the npm registry. */
  private static final Path NODE_CLIENTS = Path.of("node-clients").toAbsolutePath();

  /** The four clients, one pull request each; every line is "CLIENT OP STATUS DETAIL". */
  private static final String CLIENTS = """
      set -u
      export GH_PROMPT_DISABLED=1 GH_NO_UPDATE_NOTIFIER=1 NO_COLOR=1 GH_CONFIG_DIR="$PWD/gh-config"
      git clone -q https://github.com/acme/widget.git widget
      cd widget
      for c in octokit requests gh curl; do
        git checkout -q -b "$c-$RUN" main
        echo "$c" > "$c.txt"
        git add . && git -c user.name=agent -c user.email=agent@example.com commit -qm "$c"
        git push -q origin "$c-$RUN"
      done
      cd ..
      number() { sed -n 's/^[a-z]* pr 201 \\([0-9]*\\)$/\\1/p' "$1"; }
      node octokit.mjs read > o-read; node octokit.mjs pr "octokit-$RUN" > o-pr
      node octokit.mjs merge "$(number o-pr)" > o-merge
      python3 requests_client.py read > r-read; python3 requests_client.py pr "requests-$RUN" > r-pr
      python3 requests_client.py merge "$(number r-pr)" > r-merge
      echo "gh read $(gh api repos/acme/widget --jq .full_name 2>&1)" > g-read
      gh pr create -R acme/widget --head "gh-$RUN" --base main --title "Add gh-$RUN" \\
        --body "from gh" > g-pr.out 2>&1; echo "gh pr $? $(tr '\\n' ' ' < g-pr.out)" > g-pr
      n=$(sed -n 's|.*/pull/\\([0-9]*\\).*|\\1|p' g-pr.out)
      gh pr merge "${n:-0}" -R acme/widget --merge > g-merge.out 2>&1
      echo "gh merge $? $(tr '\\n' ' ' < g-merge.out)" > g-merge
      api() {
        curl -sS --max-time 60 -H "Authorization: token $GH_TOKEN" -o body.json -w '%{http_code}' "$@"
      }
      detail() {
        python3 -c 'import json; b = json.load(open("body.json")); print(b.get("number") or b.get("full_name") or b.get("message", ""))'
      }
      s=$(api https://api.github.com/repos/acme/widget); echo "curl read $s $(detail)" > c-read
      s=$(api -X POST https://api.github.com/repos/acme/widget/pulls \\
        -d "{\\"head\\":\\"curl-$RUN\\",\\"base\\":\\"main\\",\\"title\\":\\"Add curl-$RUN\\"}")
      echo "curl pr $s $(detail)" > c-pr
      s=$(api -X PUT "https://api.github.com/repos/acme/widget/pulls/$(number c-pr)/merge" -d '{}')
      echo "curl merge $s $(detail)" > c-merge
      cat o-read o-pr o-merge r-read r-pr r-merge g-read g-pr g-merge c-read c-pr c-merge
      """;

  /** The clients {@link #CLIENTS} runs, as each names its lines. */
  private static final List<String> CLIENT_NAMES = List.of("octokit", "requests", "gh", "curl");

  @RegisterExtension
  static final BothRunProxies appliances = new BothRunProxies();

  @BeforeAll
  void start() throws Exception {
    boolean octokit = Files.isDirectory(NODE_CLIENTS.resolve("node_modules/@octokit/rest"));
    if (!octokit && "true".equals(System.getenv("CI"))) {
      fail("Octokit is not installed: .ci/run runs npm ci in it/node-clients");
    }
    Assumptions.assumeTrue(octokit, "Octokit is not installed: run npm ci in it/node-clients");
  }

  @BothRunProxies.EachProxy
  void everyClientReadsOpensAnAllowedPullRequestAndIsRefusedAMerge(String proxy)
      throws Exception {
    String out = clients(proxy, "allowed", "open-pull-request: allow\npush: allow\n");
    for (String client : CLIENT_NAMES) {
      assertThat(line(out, client + " read")).as(out)
          .isEqualTo(client.equals("gh") ? "gh read acme/widget" : client + " read 200 acme/widget");
      assertThat(line(out, client + " pr")).as(out)
          .matches(client.equals("gh") ? "gh pr 0 .*/acme/widget/pull/[0-9]+.*"
              : client + " pr 201 .*");
      assertThat(line(out, client + " merge")).as(out)
          .contains("Control Center policy: merging a pull request is denied in every mode,"
              + " whatever the rules")
          .contains("a person merges it on GitHub");
      assertThat(line(out, client + " merge")).as(out)
          .startsWith(client.equals("gh") ? "gh merge 1 " : client + " merge 403 ");
    }
  }

  @BothRunProxies.EachProxy
  void everyClientIsRefusedADeniedPullRequestWithThePolicysMessage(String proxy)
      throws Exception {
    String out = clients(proxy, "denied", "open-pull-request: deny\npush: allow\n");
    assertThat(CLIENT_NAMES).allSatisfy(client -> assertThat(line(out, client + " pr"))
        .as(out).startsWith(client.equals("gh") ? "gh pr 1 " : client + " pr 403 ")
        .contains("Control Center policy:", "(open-pull-request)"));
  }

  /** Runs {@link #CLIENTS} in one run of {@code proxy}'s appliance and returns its lines. */
  private String clients(String proxy, String name, String rules) throws Exception {
    RunningAppliance app = appliances.of(proxy);
    Path root = appliances.dir(proxy);
    Path work = Files.createDirectories(root.resolve("work-" + proxy + "-" + name));
    copy(NODE_CLIENTS, work, List.of("octokit.mjs", "requests_client.py", "package.json"));
    FileTrees.copy(NODE_CLIENTS.resolve("node_modules"), work.resolve("node_modules"));
    try (Stream<Path> all = Files.walk(work)) {
      for (Path p : (Iterable<Path>) all::iterator) {
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(
            Files.isDirectory(p) ? "rwxrwxrwx" : "rw-rw-rw-"));
      }
    }
    Path rulesFile = Files.writeString(root.resolve("rules-" + proxy + "-" + name + ".yaml"),
        "denyWriteGlobs: []\n" + rules);
    PushgateExec.Result exec;
    // A sandboxed chat run's pushes ask, as the hook asks without a sandbox (issue 28).
    try (AllowingApprover approver = AllowingApprover.connect(app)) {
      exec = PushgateExec.on(app.dataDir, root.resolve("home"))
          .run(work, Map.of("RUN", name), "--workdir", work.toString(), "--rules",
              rulesFile.toString(), "--pass-env", "RUN", "--", "sh", "-c", CLIENTS);
    }
    assertThat(exec.exit()).as(exec.stderr() + exec.stdout()).isZero();
    assertThat(exec.stderr()).contains(proxy.equals("sandboxed") ? "under bubblewrap" : "");
    return exec.stdout();
  }

  private static String line(String out, String prefix) {
    return out.lines().filter(l -> l.startsWith(prefix + " ")).findFirst()
        .orElseThrow(() -> new AssertionError("no line " + prefix + " in:\n" + out));
  }

  private static void copy(Path from, Path to, List<String> names) throws Exception {
    for (String n : names) {
      Files.copy(from.resolve(n), to.resolve(n), StandardCopyOption.REPLACE_EXISTING);
    }
  }
}
