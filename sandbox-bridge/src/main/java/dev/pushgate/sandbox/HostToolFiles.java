package dev.pushgate.sandbox;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Files at a worktree's root that a tool on the operator's side runs, or takes the programs it
 * runs from, once the run has ended: editors, direnv, devcontainers, pre-commit, make, coding
 * agents. They are the repository's own content, which an agent may have to edit (a
 * {@code Makefile}), and each of these tools asks before it trusts a folder or runs on its own
 * only once installed; so they are not denied. What the run created or changed of them is
 * reported when it ends, with the tool that would run it. Those of them that
 * {@link SandboxPlanner#MANDATORY_WRITE_DENY} denies at a writable mount's root ({@code .vscode},
 * {@code .idea}, Claude Code's settings, {@code .mcp.json}) are here for the worktrees deeper down;
 * at the root their empty placeholders hold nothing and are not reported.
 */
final class HostToolFiles {
  /** One name at a worktree's root and what on the operator's side runs it. */
  record Entry(String name, String runBy) {}

  private static final String MISE = "mise runs its hooks and tasks, once trusted";
  private static final String EXRC = "vim and Neovim with 'exrc' run it";
  private static final String JUST = "just runs its recipes";
  private static final String TASK = "Task (go-task) runs its tasks";
  private static final String RAKE = "rake runs it";

  static final List<Entry> ENTRIES = List.of(
      new Entry(".envrc", "direnv runs it on entering the directory, once allowed"),
      new Entry(".devcontainer", "a dev container build runs its commands, initializeCommand"
          + " on the host"),
      new Entry(".devcontainer.json", "a dev container build runs its commands,"
          + " initializeCommand on the host"),
      new Entry(".vscode", "VS Code runs its tasks (runOn folderOpen) and takes its settings"
          + " in a trusted folder"),
      new Entry(".idea", "JetBrains IDEs run its run configurations and startup tasks"),
      new Entry(".cursor", "Cursor takes its rules and starts its MCP servers"),
      new Entry(".claude", "Claude Code runs its hooks and starts its MCP servers"),
      new Entry(".mcp.json", "coding agents start the MCP servers it names"),
      new Entry(".pre-commit-config.yaml", "pre-commit runs the hooks it names at the next"
          + " commit where pre-commit is installed"),
      new Entry(".husky", "husky's hooks run at the next commit where core.hooksPath names it"),
      new Entry("Makefile", "make runs it"),
      new Entry("GNUmakefile", "make runs it"),
      new Entry("makefile", "make runs it"),
      new Entry("mise.toml", MISE),
      new Entry(".mise.toml", MISE),
      new Entry(".mise", MISE),
      new Entry(".config/mise.toml", MISE),
      new Entry(".config/mise", MISE),
      new Entry(".nvim.lua", "Neovim with 'exrc' runs it, once trusted"),
      new Entry(".nvimrc", "Neovim with 'exrc' runs it, once trusted"),
      new Entry(".exrc", EXRC),
      new Entry(".vimrc", EXRC),
      new Entry(".gvimrc", EXRC),
      new Entry("_vimrc", EXRC),
      new Entry(".gemini", "Gemini CLI takes its settings and starts the MCP servers they name"),
      new Entry(".zed", "Zed runs its tasks and takes its settings"),
      new Entry("Justfile", JUST),
      new Entry("justfile", JUST),
      new Entry(".justfile", JUST),
      new Entry("Taskfile.yml", TASK),
      new Entry("Taskfile.yaml", TASK),
      new Entry("taskfile.yml", TASK),
      new Entry("taskfile.yaml", TASK),
      new Entry("Taskfile.dist.yml", TASK),
      new Entry("Taskfile.dist.yaml", TASK),
      new Entry("Rakefile", RAKE),
      new Entry("rakefile", RAKE),
      new Entry("Rakefile.rb", RAKE),
      new Entry("rakefile.rb", RAKE));

  private HostToolFiles() {}

  /** Each of {@link #ENTRIES} present at {@code worktree}, with its {@link TreeDigest}. */
  static Map<String, String> snapshot(Path worktree) {
    Map<String, String> out = new LinkedHashMap<>();
    for (Entry e : ENTRIES) {
      Path p = worktree.resolve(e.name());
      if (Files.exists(p, LinkOption.NOFOLLOW_LINKS) && !TreeDigest.holdsNothing(p)) {
        out.put(e.name(), TreeDigest.of(p));
      }
    }
    return out;
  }

  /** What of {@link #ENTRIES} the run created or changed at {@code worktree}, as findings. */
  static List<SandboxViolation> changes(Path worktree, Map<String, String> before) {
    Map<String, String> now = snapshot(worktree);
    List<SandboxViolation> out = new ArrayList<>();
    for (Entry e : ENTRIES) {
      String digest = now.get(e.name());
      if (digest == null || digest.equals(before.get(e.name()))) {
        continue;
      }
      Path p = worktree.resolve(e.name());
      out.add(new SandboxViolation(SandboxViolation.HOST_TOOL_FILE, p.toString(), p + ": "
          + (before.containsKey(e.name()) ? "changed" : "created") + " during the run; "
          + e.runBy() + ": look at it before using that tool here"));
    }
    return out;
  }
}
