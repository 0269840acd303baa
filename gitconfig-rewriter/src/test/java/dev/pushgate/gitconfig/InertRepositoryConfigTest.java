package dev.pushgate.gitconfig;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class InertRepositoryConfigTest {
  private static final String CLONED = """
      [core]
      \trepositoryformatversion = 0
      \tfilemode = true
      \tbare = false
      \tlogallrefupdates = true
      """ + ClonedConfig.ORIGIN_AND_MAIN + """
      [user]
      \tname = Agent
      \temail = agent@example.com
      """;

  @Test
  void whatInitCloneAndBranchTrackingWriteIsInert() {
    assertThat(InertRepositoryConfig.unknownSettings(CLONED)).isEmpty();
    assertThat(InertRepositoryConfig.unknownSettings("")).isEmpty();
  }

  @Test
  void everyOtherSettingIsReportedOnceInFileOrderWhateverItsSpelling() {
    String text = CLONED + """
        [Core]
        \tFSMonitor = /work/evil.sh
        [core]
        \thooksPath = /work/hooks
        \tfsmonitor = again
        [include]
        \tpath = /work/more.config
        [includeIf "gitdir:/"]
        \tpath = /work/more.config
        [filter "lfs"]
        \tsmudge = /work/evil.sh
        [remote "origin"]
        \tuploadpack = /work/evil.sh
        [alias]
        \tst = !/work/evil.sh
        [submodule "lib"]
        \turl = /work/lib
        """;
    assertThat(InertRepositoryConfig.unknownSettings(text)).containsExactly(
        "core.fsmonitor", "core.hookspath", "include.path", "includeif.gitdir:/.path",
        "filter.lfs.smudge", "remote.origin.uploadpack", "alias.st", "submodule.lib.url");
  }

  @Test
  void aFileGitCannotReadIsReportedAsSuch() {
    assertThat(InertRepositoryConfig.unknownSettings("[core\n\tfsmonitor = x\n"))
        .containsExactly("bad config line 1");
  }
}
