package dev.pushgate.gitconfig;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class UpstreamConfigEditTest {
  private static final String CLONED = """
      [core]
      \trepositoryformatversion = 0
      \tbare = false
      """ + ClonedConfig.ORIGIN_AND_MAIN;

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
  void anUpstreamGitStoresIsAllowedForABranchThatHasNone() {
    assertThat(judge(PUSHED_U)).isNull();
    assertThat(judge(CLONED + "[branch \"a.b\"]\n\tmerge = refs/heads/a.b\n")).isNull();
    assertThat(judge(CLONED + "[branch \"x\"]\n\tremote = origin\n\tmerge = refs/heads/y\n"))
        .isNull();
    // git push -u of a branch whose upstream is already that one rewrites the same values.
    assertThat(judge(CLONED)).isNull();
    // git config and git push -u store the remote, then the merge, in two edits.
    String remoteOnly = CLONED + "[branch \"x\"]\n\tremote = origin\n";
    assertThat(judge(remoteOnly)).isNull();
    assertThat(UpstreamConfigEdit.refusal(remoteOnly, remoteOnly + "\tmerge = refs/heads/x\n"))
        .isNull();
  }

  @Test
  void anUpstreamABranchHasCannotBeChangedOrRemoved() {
    // Attack 30c: re-pointed, the operator's next git pull on main merges the agent's branch.
    for (String proposed : new String[] {
        CLONED.replace("refs/heads/main", "refs/heads/evil"),
        CLONED.replace("\tremote = origin\n\tmerge", "\tremote = upstream\n\tmerge"),
        CLONED.replace("\tmerge = refs/heads/main\n", ""),
        CLONED.replace("[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n", ""),
        CLONED + "[branch \"main\"]\n\tmerge = refs/heads/evil\n"}) {
      UpstreamConfigEdit.Refusal r = judge(proposed);
      assertThat(r).as(proposed).isNotNull();
      assertThat(r.what()).isEqualTo(UpstreamConfigEdit.EXISTING_UPSTREAM);
      assertThat(r.name()).isEqualTo("branch.main");
    }
    assertThat(UpstreamConfigEdit.refusal(PUSHED_U, CLONED).name()).isEqualTo("branch.feature/x");
  }

  @Test
  void aMergeMustBeAValidBranchRef() {
    for (String merge : new String[] {"refs/heads/../../HEAD", "refs/heads/--upload-pack=x",
        "refs/heads/HEAD", "refs/heads/a//b", "refs/heads/a/", "refs/heads/.hidden",
        "refs/heads/x.lock", "refs/heads/x.", "refs/heads/a@{1}", "refs/heads/@",
        "refs/tags/v1", "refs/heads/"}) {
      UpstreamConfigEdit.Refusal r =
          judge(CLONED + "[branch \"x\"]\n\tremote = origin\n\tmerge = " + merge + "\n");
      assertThat(r).as(merge).isNotNull();
      assertThat(r.name()).as(merge).isEqualTo(merge);
    }
    assertThat(judge(CLONED + "[branch \"-x\"]\n\tremote = origin\n").name())
        .isEqualTo("branch.-x.remote");
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
