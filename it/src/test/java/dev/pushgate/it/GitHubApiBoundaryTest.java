package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.RunningAppliance;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 16's GitHub API boundary, end to end: real curl in {@code pushgate exec}'s bubblewrap
 * sandbox calls {@code https://api.github.com/...}; the run's proxy sends it to the run's boundary,
 * curl verifies the boundary's certificate with the run CA from {@code CURL_CA_BUNDLE} (no
 * {@code -k}), and the local forge, standing in for GitHub, answers only because it was sent the
 * real installation token: the run itself holds a sentinel the forge refuses.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GitHubApiBoundaryTest {

  @RegisterExtension
  static final ApplianceExtension app = ApplianceExtension.serving().forSandboxedRuns()
      .with(b -> b.jvm(List.of("-Dpushgate.github-api-boundary=true"))).withRepos("acme/widget");

  Path rules;

  @BeforeAll
  void start() throws Exception {
    ExecTest.requireBwrap();
    // The tracker denied: the issue write below is refused by the boundary with the rule's reason.
    rules = Files.writeString(app.dir().resolve("rules.yaml"),
        "denyWriteGlobs: []\nwrite-tracker: deny\n");
  }

  @Test
  void curlReachesTheApiThroughTheBoundaryWhichSwapsTheSentinelForTheRealToken()
      throws Exception {
    Path work = Files.createDirectories(app.dir().resolve("work"));
    Files.setPosixFilePermissions(work, PosixFilePermissions.fromString("rwxrwxrwx"));
    String script = """
        case "$GH_TOKEN" in ghs_pushgate*) echo "sentinel-in-gh-token" ;; esac
        test "$GITHUB_TOKEN" = "$GH_TOKEN" && echo "same-in-github-token"
        echo "tokens-in-env: $(env | grep -o 'gh[su]_[A-Za-z0-9_]*' | grep -vc '^ghs_pushgate')"
        curl -sS --max-time 30 -H "Authorization: token $GH_TOKEN" \
          https://api.github.com/installation/repositories; echo
        echo "without-sentinel $(curl -s -o /dev/null -w '%{http_code}' --max-time 30 \
          https://api.github.com/installation/repositories)"
        echo "write $(curl -s --max-time 30 -X POST -H "Authorization: token $GH_TOKEN" \
          -d '{"title":"x"}' https://api.github.com/repos/acme/widget/issues)"
        echo "system-bundle $(curl -s -o /dev/null -w '%{http_code}' --max-time 30 \
          --cacert /etc/ssl/certs/ca-certificates.crt \
          https://api.github.com/installation/repositories)"
        echo "insecure-refused $(curl -s -o /dev/null -w '%{http_code}' --max-time 30 \
          --cacert /dev/null --capath /dev/null \
          https://api.github.com/installation/repositories || echo tls-failed)"
        """;
    PushgateExec.Result exec = exec(work, "--workdir", work.toString(), "--rules", rules.toString(), "--", "sh", "-c", script);
    assertThat(exec.exit()).as(exec.stderr()).isZero();
    assertThat(exec.stderr()).contains("under bubblewrap");
    assertThat(exec.stdout()).as(exec.stderr())
        .contains("sentinel-in-gh-token", "same-in-github-token", "tokens-in-env: 0",
            "\"full_name\":\"acme/widget\"", "without-sentinel 401", "system-bundle 401",
            "Control Center policy:", "tls-failed");

    // Every decision is in the audit beside the pushes, without the sentinel or the token.
    String audit = RunningAppliance.cli("audit", "--run", exec.runId(), "--decisions",
        "--data-dir", app.get().dataDir.toString());
    assertThat(audit).contains("GET api.github.com/installation/repositories",
        "POST api.github.com/repos/acme/widget/issues", "denied").doesNotContain("ghs_");
  }

  @Test
  void withoutAnOsSandboxTheSameGoesThroughHttpsProxyCooperatively() throws Exception {
    Path data = app.dir().resolve("data-none");
    try (RunningAppliance none = RunningAppliance.on(data)
        .jvm(List.of("-Dpushgate.github-api-boundary=true"))
        .serve(List.of("--sandbox", "off")).start()) {
      none.forgeCreate("acme/widget");
      Path work = Files.createDirectories(app.dir().resolve("work-none"));
      String script = """
          login=${HTTPS_PROXY#http://}; echo "proxy-user=${login%%:*}"
          curl -sS --max-time 30 -H "Authorization: token $GH_TOKEN" \
            https://api.github.com/installation/repositories; echo
          echo "write $(curl -s --max-time 30 -X POST -H "Authorization: token $GH_TOKEN" \
            -d '{}' https://api.github.com/repos/acme/widget/issues)"
          """;
      PushgateExec.Result exec = exec(data, work, "--workdir", work.toString(), "--rules", rules.toString(),
          "--", "sh", "-c", script);
      assertThat(exec.exit()).as(exec.stderr()).isZero();
      // the appliance's shared proxy, with the run's login: it hands the API connection over
      // to the boundary in its own process, with no relay (docs/github-api.md)
      assertThat(exec.stdout()).as(exec.stderr()).contains("proxy-user=" + exec.runId(),
          "\"full_name\":\"acme/widget\"", "Control Center policy:");
    }
  }

  private static PushgateExec.Result exec(Path cwd, String... args) throws Exception {
    return exec(app.get().dataDir, cwd, args);
  }

  private static PushgateExec.Result exec(Path dataDir, Path cwd, String... args)
      throws Exception {
    return PushgateExec.on(dataDir, app.dir().resolve("home")).run(cwd, Map.of(), args);
  }
}
