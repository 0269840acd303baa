package dev.pushgate.gitconfig;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class UpstreamConfigEditTest {
  private static final String CLONED = """
      [core]
      \trepositoryformatversion = 0
      \tbare = false
      [remote "origin"]
      \turl = https://github.com/acme/widget.git
      \tfetch = +refs/heads/*:refs/remotes/origin/*
      [branch "main"]
      \tremote = origin
      \tmerge = refs/heads/main
      """;

  /** What git 2.39's git push -u origin feature/x writes. */
  private static final String PUSHED_U = CLONED + """
      [branch "feature/x"]
      \tremote = origin
      \tmerge = refs/heads/feature/x
      """;

  private static UpstreamConfigEdit.Refusal judge(String proposed) {
    return UpstreamConfigEdit.refusal(CLONED, proposed);
  }

  @Test
  void anUpstreamGitStoresIsAllowedAddedChangedOrRemoved() {
    assertThat(judge(PUSHED_U)).isNull();
    assertThat(UpstreamConfigEdit.refusal(PUSHED_U, CLONED)).isNull();
    assertThat(judge(CLONED.replace("refs/heads/main", "refs/heads/release-1.2"))).isNull();
    assertThat(judge(CLONED + "[branch \"a.b\"]\n\tmerge = refs/heads/a.b\n")).isNull();
  }

  @Test
  void everyOtherSettingIsRefusedByName() {
    for (String added : new String[] {
        "[core]\n\tfsmonitor = /work/evil.sh\n",
        "[core]\n\thooksPath = /work/hooks\n",
        "[include]\n\tpath = /work/more\n",
        "[includeIf \"gitdir:/\"]\n\tpath = /work/more\n",
        "[branch \"x\"]\n\tpushRemote = origin\n",
        "[branch \"x\"]\n\trebase = true\n",
        "[remote \"origin\"]\n\turl = https://evil.example/widget.git\n",
        "[remote \"evil\"]\n\turl = /work/evil\n"}) {
      assertThat(judge(CLONED + added)).as(added).isNotNull();
      assertThat(judge(CLONED + added).what()).contains("other than an upstream");
    }
    assertThat(judge(CLONED + "[Core]\n\tFSMonitor = x\n").name()).isEqualTo("core.fsmonitor");
    assertThat(judge(CLONED.replace("acme/widget", "evil/widget")).name())
        .isEqualTo("remote.origin.url");
    assertThat(judge(CLONED.replace("\tbare = false\n", ""))).isNotNull();
  }

  @Test
  void syntaxTricksAreReadAsGitReadsThem() {
    // A continuation line joins "[core]" to the value: no section, an upstream naming no remote.
    assertThat(judge(CLONED + "[branch \"x\"]\n\tremote = origin\\\n[core]\n\tfsmonitor = e\n"))
        .isNotNull();
    assertThat(judge(CLONED + "[branch \"x\"]\n\tremote = origin\\\n[core]\n").name())
        .isEqualTo("origin[core]");
    // A quoted subsection holding a quote and a bracket is one branch name, not a new section.
    assertThat(judge(CLONED + "[branch \"x\\\"] [core\"]\n\tremote = origin\n").name())
        .isEqualTo("branch.x\"] [core.remote");
    // Duplicate keys: each new value is judged, not only the last git reads.
    assertThat(judge(CLONED + "[branch \"x\"]\n\tremote = evil\n\tremote = origin\n")).isNotNull();
    // An inline section after a value's comment is a comment.
    assertThat(judge(CLONED + "[branch \"x\"]\n\tremote = origin ; [core] fsmonitor = e\n"))
        .isNull();
    // CR, NUL, a value with a newline, a bare key.
    assertThat(judge(CLONED + "[branch \"x\"]\r\n\tmerge = refs/heads/x\\n[core]\n")).isNotNull();
    assertThat(judge(CLONED + "[branch \"x\"]\n\tmerge = refs/heads/x\0\n")).isNotNull();
    assertThat(judge(CLONED + "[branch \"x\"]\n\tmerge\n")).isNotNull();
    assertThat(judge(CLONED + "[branch \"x\"]\n\tmerge = refs/tags/v1\n")).isNotNull();
    assertThat(judge(CLONED + "[core\n\tfsmonitor = x\n").what()).contains("bad config line");
    assertThat(judge("x".repeat(UpstreamConfigEdit.MAX_BYTES + 1)).what()).contains("larger");
  }
}
