package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.testkit.RunningAppliance;
import org.junit.jupiter.api.Test;

/** {@code pushgate demo}, as a newcomer runs it: every step behaves as described, exit 0. */
class DemoTest {
  @Test
  void theDemoTellsTheWholeStoryWithTheRealGitClientAndExitsZero() throws Exception {
    int port;
    try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
      port = free.getLocalPort();
    }
    // fails unless the exit status is 0
    String out = RunningAppliance.cli("demo", "--port", String.valueOf(port));

    assertThat(out)
        .contains("serving on 127.0.0.1:" + port + ", data in ")
        .contains("$ git clone https://github.com/acme/widget.git widget")
        .contains(" * [new branch]      feature/hello -> feature/hello")
        .contains(" ! [remote rejected] main -> main"
            + " (Control Center policy: push to main is denied)")
        .contains("remote: waiting for approval of create refs/heads/release/1.0 of acme/widget")
        .containsPattern("the demo's approver allowed q_[0-9a-f]+: create refs/heads/release/1\\.0")
        .contains(" * [new branch]      release/1.0 -> release/1.0")
        .contains(" ! [remote rejected] feature/hello -> feature/hello"
            + " (Control Center policy: history is not rewritten here)")
        // The write token of the refused force-push is revoked unused just after git has its
        // answer; the teardown that follows at once may still find it live, and revokes it.
        .containsPattern("revoked read \\(acme/widget\\), (write \\(acme/widget\\), )?gateway;"
            + " pending none")
        // The run holds no GitHub token: its GH_TOKEN is a sentinel the forge refuses while the
        // run is live, and its git reads went through the gateway.
        .contains("GH_TOKEN=ghs_pushgate\u2026")
        .contains("fetched through the gateway")
        .contains("Authorization: Basic x-access-token:ghs_pushgate\u2026  -> 401")
        .contains("git-upload-pack\n        Authorization: Bearer pgr_\u2026  -> 401")
        .contains("git-receive-pack\n        Authorization: Bearer pgr_\u2026  -> 401")
        .containsPattern("TIME +REPOSITORY +REF +KIND +CODE +REASON\n")
        .containsPattern("\\d\\d:\\d\\d:\\d\\d  acme/widget  refs/heads/main +update-or-force"
            + "  RULE_DENIED  push to main is denied\n")
        .containsPattern("\\d\\d:\\d\\d:\\d\\d  acme/widget  refs/heads/feature/hello  force"
            + " +RULE_DENIED  history is not rewritten here\n")
        .contains("\u2714 all 12 steps behaved as described.")
        .doesNotContain("\u2718");
    for (int step = 1; step <= 12; step++) {
      assertThat(out).containsPattern("(?m)^ ?" + step + "\\. .*\n(.*\n)*?    \u2714 ");
    }
    assertThat(out).doesNotContainPattern("gh[ps]_[A-Za-z0-9]{16,}")
        .doesNotContainPattern("pgr_[A-Za-z0-9_-]{16,}");
  }
}
