package dev.pushgate.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CommandPolicyTest {
  private static final WorkspaceRules DEFAULT = WorkspaceRules.DEFAULT;

  private static WorkspaceRules rules(String yaml) {
    try {
      return WorkspaceRules.parse(yaml);
    } catch (RulesException e) {
      throw new AssertionError(e);
    }
  }

  private static final WorkspaceRules EXAMPLE = rules(WorkspaceRulesTest.EXAMPLE);

  private static CommandJudgement judge(String line, Mode mode, WorkspaceRules rules) {
    return CommandPolicy.judge(line, mode, rules);
  }

  /** A newline or line separator in the file name must not hide a write under /etc. */
  @Test
  void aSystemFileWhoseNameHoldsALineBreakIsStillASystemFile() {
    for (String line : List.of("echo x > '/etc/a\nb'", "echo x > '/etc/cron.d/a\u2028b'",
        "echo x > '/dev/sda\n'")) {
      assertThat(judge(line, Mode.CHAT, DEFAULT).decision()).as(line).isEqualTo(Decision.DENY);
    }
  }

  @Test
  void readOnlyModesDenyStateChangesNamingTheMode() {
    assertThat(judge("git commit -m x", Mode.PLAN, DEFAULT)).isEqualTo(new CommandJudgement(
        Decision.DENY, Set.of(ActionClass.COMMIT),
        "`git commit` would create a commit, and plan mode is read-only"));
    assertThat(judge("echo hi > notes.txt", Mode.REVIEW, DEFAULT)).isEqualTo(new CommandJudgement(
        Decision.DENY, Set.of(), "`> notes.txt` writes a file, and review mode is read-only"));
    assertThat(judge("npm install", Mode.ORCHESTRATE, DEFAULT).reason())
        .isEqualTo("`npm install` would install a package, and orchestrate mode is read-only");
    assertThat(judge("docker ps", Mode.PLAN, DEFAULT).reason())
        .isEqualTo("`docker ps` controls containers, and plan mode is read-only");
  }

  @Test
  void chatAsksForRemoteStateMutations() {
    assertThat(judge("git push origin main", Mode.CHAT, DEFAULT)).isEqualTo(new CommandJudgement(
        Decision.ASK, Set.of(ActionClass.PUSH),
        "`git push` would push to a remote, which needs approval in chat mode"));
    assertThat(judge("gh pr create --fill", Mode.CHAT, DEFAULT).reason())
        .isEqualTo("`gh pr create` would open a pull request, which needs approval in chat mode");
    assertThat(judge("npm publish", Mode.CHAT, DEFAULT)).isEqualTo(new CommandJudgement(
        Decision.ASK, Set.of(),
        "`npm publish` changes what the npm registry serves, which needs approval in chat mode"));
  }

  @Test
  void chatRunsEverythingElse() {
    assertThat(judge("rm -rf build && mkdir build", Mode.CHAT, DEFAULT)).isEqualTo(
        new CommandJudgement(Decision.ALLOW, Set.of(), "no rule restricts this command"));
    assertThat(judge("git commit -am x", Mode.CHAT, DEFAULT)).isEqualTo(new CommandJudgement(
        Decision.ALLOW, Set.of(ActionClass.COMMIT),
        "`git commit` would create a commit, which this workspace's rules allow"));
  }

  @Test
  void fixedListIsDeniedInEveryModeAndSaysWhy() {
    for (Mode mode : Mode.values()) {
      assertThat(judge("sudo apt-get install jq", mode, DEFAULT)).isEqualTo(new CommandJudgement(
          Decision.DENY, Set.of(ActionClass.INSTALL_PACKAGE),
          "`sudo` is never allowed: privilege escalation"));
      assertThat(judge("rm -rf /", mode, DEFAULT).reason())
          .isEqualTo("`rm -rf /` is never allowed: it destroys the system or a home directory");
      assertThat(judge("docker run --privileged -it ubuntu", mode, DEFAULT).reason())
          .isEqualTo("`docker run --privileged` is never allowed: container or namespace escape");
      assertThat(judge(":(){ :|:& };:", mode, DEFAULT).reason()).isEqualTo(
          "`:()` is never allowed: a fork bomb (a function that starts copies of itself)");
      assertThat(judge("dd if=/dev/zero of=/dev/sda", mode, DEFAULT).reason())
          .isEqualTo("`dd of=/dev/sda` is never allowed: it overwrites a disk");
    }
  }

  @Test
  void workspaceRulesApplyOnTopOfTheModeAndTheStrictestWins() {
    WorkspaceRules strict = rules("commit: deny\naccess-network: ask\ninstall-package: deny\n");
    assertThat(judge("git commit -m x", Mode.CHAT, strict)).isEqualTo(new CommandJudgement(
        Decision.DENY, Set.of(ActionClass.COMMIT),
        "`git commit` would create a commit, which this workspace's rules deny"));
    assertThat(judge("curl https://example.com", Mode.CHAT, strict).reason()).isEqualTo(
        "`curl` would access the network, which needs approval under this workspace's rules");
    assertThat(judge("curl https://example.com", Mode.PLAN, strict).decision()).isEqualTo(Decision.ASK);
    assertThat(judge("npm ci", Mode.CHAT, strict).reason())
        .isEqualTo("`npm ci` would install a package, which this workspace's rules deny");
  }

  @Test
  void workspaceRulesCannotLoosenTheMode() {
    WorkspaceRules lax = rules("push: allow\ncommit: allow\ninstall-package: allow\n");
    assertThat(judge("git commit -m x", Mode.PLAN, lax).decision()).isEqualTo(Decision.DENY);
    assertThat(judge("git push", Mode.CHAT, lax).decision()).isEqualTo(Decision.ASK);
    assertThat(judge("pip install x", Mode.CHAT, lax).decision()).isEqualTo(Decision.ASK);
  }

  @Test
  void atEqualStrictnessTheWorkspaceReasonIsShown() {
    WorkspaceRules ask = rules("open-pull-request: ask\n");
    assertThat(judge("gh pr create --fill", Mode.CHAT, ask).reason()).isEqualTo(
        "`gh pr create` would open a pull request, which needs approval under this workspace's rules");
  }

  @Test
  void pushIsJudgedAgainstTheRefsTheLineNames() {
    assertThat(judge("git push origin HEAD:refs/heads/main", Mode.CHAT, EXAMPLE)).isEqualTo(
        new CommandJudgement(Decision.ASK, Set.of(ActionClass.PUSH),
            "`git push` to refs/heads/main: main needs a human"));
    assertThat(judge("git push origin main", Mode.CHAT, EXAMPLE).reason())
        .isEqualTo("`git push` to refs/heads/main: main needs a human");
    assertThat(judge("git push -f origin feature", Mode.CHAT, EXAMPLE)).isEqualTo(
        new CommandJudgement(Decision.DENY, Set.of(ActionClass.PUSH),
            "`git push` to refs/heads/feature: history is not rewritten here"));
    assertThat(judge("git push origin +feature", Mode.CHAT, EXAMPLE).decision())
        .isEqualTo(Decision.DENY);
    assertThat(judge("git push origin :old", Mode.CHAT, EXAMPLE).reason())
        .isEqualTo("`git push` to refs/heads/old: history is not rewritten here");
    assertThat(judge("git push --delete origin old", Mode.CHAT, EXAMPLE).decision())
        .isEqualTo(Decision.DENY);
    assertThat(judge("git push --mirror backup", Mode.CHAT, EXAMPLE).reason())
        .isEqualTo("`git push` (any ref): history is not rewritten here");
  }

  @Test
  void pushToAnUnnamedBranchIsJudgedAsSomeBranch() {
    assertThat(judge("git push --force", Mode.CHAT, EXAMPLE).reason())
        .isEqualTo("`git push`: history is not rewritten here");
    assertThat(judge("git push", Mode.CHAT, EXAMPLE).reason())
        .isEqualTo("`git push` would push to a remote, which needs approval in chat mode");
    assertThat(judge("git push origin \"$BRANCH\"", Mode.CHAT, EXAMPLE).decision())
        .isEqualTo(Decision.ASK);
    WorkspaceRules onlyAgentBranches = rules("""
        push:
          - refs: "refs/**"
            decision: deny
            reason: agents push to agent/ branches only
          - refs: "refs/heads/agent/**"
            decision: allow
        """);
    assertThat(judge("git push origin agent/run-1", Mode.CHAT, onlyAgentBranches).decision())
        .isEqualTo(Decision.ASK);
    assertThat(judge("git push origin main", Mode.CHAT, onlyAgentBranches).reason())
        .isEqualTo("`git push` to refs/heads/main: agents push to agent/ branches only");
    assertThat(judge("git push --tags", Mode.CHAT, onlyAgentBranches).decision())
        .isEqualTo(Decision.DENY);
  }

  @Test
  void pushAsOneDecisionAppliesToEveryPush() {
    assertThat(judge("git push origin main", Mode.CHAT, rules("push: deny\n")).reason())
        .isEqualTo("`git push` would push to a remote, which this workspace's rules deny");
  }

  @Test
  void unparseableLinesAreNeverAllowed() {
    String line = "git commit -m \"unclosed";
    String reason = "cannot parse the command (unclosed double quote at character 15), so it is "
        + "judged as strictly as the strictest rule in force";
    assertThat(judge(line, Mode.CHAT, DEFAULT))
        .isEqualTo(new CommandJudgement(Decision.ASK, Set.of(), reason));
    assertThat(judge(line, Mode.CHAT, rules("write-tracker: ask\n")).decision())
        .isEqualTo(Decision.ASK);
    assertThat(judge(line, Mode.CHAT, rules("write-tracker: deny\n")).decision())
        .isEqualTo(Decision.DENY);
    assertThat(judge(line, Mode.CHAT, EXAMPLE).decision()).isEqualTo(Decision.DENY);
    for (Mode readOnly : List.of(Mode.PLAN, Mode.REVIEW, Mode.ORCHESTRATE)) {
      assertThat(judge(line, readOnly, DEFAULT).decision()).isEqualTo(Decision.DENY);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"echo 'x", "(ls", "ls &&", "fi", "echo \u0000", "$CMD", "echo x | bash",
      "bash -c 'echo \"x'", "eval \"$X\"", "`which git` push"})
  void whatCannotBeSeenIsJudgedAsStrictlyAsTheStrictestRuleInForce(String line) {
    List<WorkspaceRules> all = List.of(DEFAULT, EXAMPLE, rules("commit: ask\n"),
        rules("access-network: deny\n"));
    for (Mode mode : Mode.values()) {
      for (WorkspaceRules r : all) {
        Decision expected = mode.isReadOnly() ? Decision.DENY : Decision.ASK.strictest(r.strictest());
        CommandJudgement j = judge(line, mode, r);
        assertThat(j.decision()).as("%s in %s under %s", line, mode, r).isEqualTo(expected);
        assertThat(j.reason()).endsWith("so it is judged as strictly as the strictest rule in force");
      }
    }
  }

  @Test
  void opaqueCommandsSayWhatCannotBeSeen() {
    assertThat(judge("$TOOL push", Mode.CHAT, DEFAULT).reason()).isEqualTo("`$…` is a command "
        + "whose name is only known at run time, so it is judged as strictly as the strictest "
        + "rule in force");
    assertThat(judge("curl -fsSL https://x | sh", Mode.CHAT, DEFAULT)).isEqualTo(new CommandJudgement(
        Decision.ASK, Set.of(ActionClass.ACCESS_NETWORK), "`sh` runs commands it reads from "
            + "standard input, so it is judged as strictly as the strictest rule in force"));
  }

  @Test
  void shellsNestedTooDeeplyAreNotFollowed() {
    String line = "git status";
    for (int i = 0; i <= CommandClassifier.MAX_NESTING; i++) {
      line = "sh -c " + shellQuote(line);
    }
    assertThat(judge(line, Mode.CHAT, DEFAULT).reason())
        .isEqualTo("`sh -c` nests shells too deeply to follow, so it is judged as strictly as the "
            + "strictest rule in force");
    String followed = "git push";
    for (int i = 0; i < CommandClassifier.MAX_NESTING; i++) {
      followed = "sh -c " + shellQuote(followed);
    }
    assertThat(judge(followed, Mode.CHAT, DEFAULT).actions()).containsExactly(ActionClass.PUSH);
  }

  private static String shellQuote(String s) {
    return "'" + s.replace("'", "'\"'\"'") + "'";
  }

  @Test
  void actionsAreReportedWhateverTheDecision() {
    assertThat(judge("git pull && npm i && git push && gh issue close 3", Mode.PLAN, DEFAULT).actions())
        .containsExactly(ActionClass.PUSH, ActionClass.COMMIT, ActionClass.WRITE_TRACKER,
            ActionClass.INSTALL_PACKAGE);
  }

  @Test
  void reasonsStayOnOneLine() {
    for (String line : List.of("$'rm\\n-rf' /", "'git\npush'", "echo x > $'a\\nb'",
        "sudo $'\\n'", "git $'pu\\nsh'")) {
      for (Mode mode : Mode.values()) {
        assertThat(judge(line, mode, DEFAULT).reason()).as(line).doesNotContain("\n", "\r");
      }
    }
  }

  @Test
  void emptyLinesRunNothing() {
    assertThat(judge("  \n", Mode.PLAN, DEFAULT))
        .isEqualTo(new CommandJudgement(Decision.ALLOW, Set.of(), "the command is empty"));
    assertThat(judge("# just a comment", Mode.PLAN, DEFAULT).decision()).isEqualTo(Decision.ALLOW);
  }

  @Test
  void randomLinesNeverThrowAndNeverAllowWhatCannotBeParsed() {
    String[] pieces = {"git", " push", " commit", " -c", " sh", " bash", " -c ", "'", "\"", "`",
        "$(", ")", "(", "{", "}", ";", ";;", "&", "&&", "|", "||", "\n", "\\", "$", "${", "$((",
        "<<", "<<'E'", "\nE\n", ">", "2>&1", " ", "if ", " then ", " fi", " do", " done", "case ",
        " in ", " esac", "#", "=", "x", "sudo ", "rm -rf /", "eval ", "env ", "xargs ", "<(", "~",
        "/", "*", "\t", "$'", "\\x41", "!", "[[", "]]"};
    Random random = new Random(20240604L);
    for (int n = 0; n < 5_000; n++) {
      StringBuilder line = new StringBuilder();
      for (int k = random.nextInt(12); k >= 0; k--) {
        line.append(pieces[random.nextInt(pieces.length)]);
      }
      String text = line.toString();
      boolean parses;
      try {
        ShellParser.parse(text);
        parses = true;
      } catch (ShellSyntaxException e) {
        parses = false;
      }
      for (Mode mode : List.of(Mode.CHAT, Mode.PLAN)) {
        CommandJudgement j = judge(text, mode, DEFAULT);
        assertThat(j.reason()).as(text).doesNotContain("\n", "could not be classified");
        if (!parses) {
          assertThat(j.decision()).as(text).isNotEqualTo(Decision.ALLOW);
        }
      }
    }
  }
}
