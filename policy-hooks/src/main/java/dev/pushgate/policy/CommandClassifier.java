package dev.pushgate.policy;

import dev.pushgate.policy.Finding.Kind;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Says what each simple command of a parsed command line does: which action classes it belongs
 * to, whether it changes local or remote state, whether it is on the fixed list no mode runs, or
 * whether what runs cannot be seen. Wrappers ({@code env}, {@code sudo}, {@code timeout}, {@code
 * xargs}, …) are looked through; {@code bash -c}, {@code eval} and {@code find -exec} are parsed
 * in turn.
 *
 * <p>It recognises the conventional spelling of an action. A command hidden in a script file, an
 * alias or a computed string is not seen; that is why pushes never depend on it.
 */
final class CommandClassifier {
  /** How many shells deep ({@code bash -c "sh -c '…'"}) the classifier follows. */
  static final int MAX_NESTING = 8;

  private static final char DYN = ShellParser.DYNAMIC;
  private static final char DYN_NONEMPTY = ShellParser.DYNAMIC_NONEMPTY;

  private static final Pattern ASSIGNMENT = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*=.*", Pattern.DOTALL);
  private static final Pattern VERSIONED = Pattern.compile("(python|pip)[0-9.]*");
  // DOTALL: a file name may hold a newline or U+2028, which "." would not match otherwise.
  private static final Pattern DISK = Pattern.compile(
      "/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk|mapper/|md|dm-|loop|mem$|kmem$|port$).*",
      Pattern.DOTALL);
  private static final Pattern SYSTEM_FILE = Pattern.compile(
      "/(etc|boot|bin|sbin|lib|lib32|lib64|libx32|usr|proc|sys|System)(/.*)?", Pattern.DOTALL);

  private static final Set<String> GIT_READS = Set.of(
      "status", "log", "diff", "show", "blame", "annotate", "grep", "ls-files", "ls-tree",
      "ls-remote", "rev-parse", "rev-list", "describe", "shortlog", "cat-file", "for-each-ref",
      "show-ref", "merge-base", "merge-tree", "name-rev", "whatchanged", "help", "version", "var",
      "check-ignore", "check-attr", "check-mailmap", "check-ref-format", "count-objects", "fsck",
      "diff-tree", "diff-files", "diff-index", "range-diff", "show-branch", "cherry",
      "verify-commit", "verify-tag", "verify-pack", "get-tar-commit-id", "column", "patch-id",
      "request-pull", "show-index", "stripspace", "difftool", "fetch-pack");
  private static final Set<String> GIT_COMMITS = Set.of(
      "commit", "merge", "rebase", "cherry-pick", "revert", "am", "pull", "commit-tree",
      "filter-branch", "filter-repo", "fast-import", "replay");
  private static final Set<String> GIT_CHANGES = Set.of(
      "add", "rm", "mv", "reset", "checkout", "switch", "restore", "clean", "init", "clone",
      "fetch", "bisect", "gc", "prune", "repack", "pack-refs", "maintenance", "update-ref",
      "update-index", "read-tree", "write-tree", "mktag", "mktree", "replace", "rerere",
      "mergetool", "checkout-index", "update-server-info", "prune-packed", "unpack-objects",
      "index-pack", "merge-file", "lfs", "annex", "send-email", "svn", "p4", "mailsplit",
      "mailinfo");

  private final List<Finding> out = new ArrayList<>();
  private final int nesting;

  private CommandClassifier(int nesting) {
    this.nesting = nesting;
  }

  /** Every finding of a parsed command line, in the order its commands appear. */
  static List<Finding> classify(List<SimpleCommand> commands) {
    CommandClassifier c = new CommandClassifier(0);
    c.all(commands);
    return c.out;
  }

  private void all(List<SimpleCommand> commands) {
    for (SimpleCommand c : commands) {
      command(c);
    }
  }

  private void command(SimpleCommand c) {
    String stdin = null;
    for (Redirect r : c.redirects()) {
      redirect(r);
      if (r.input() != null) {
        stdin = r.input();
      }
    }
    List<String> w = c.words();
    if (w.isEmpty()) {
      return;
    }
    if (c.function() != null && c.concurrent() && w.get(0).equals(c.function())) {
      forbid(display(c.function()) + "()", "a fork bomb (a function that starts copies of itself)");
    }
    words(w, 0, stdin);
  }

  // ---- redirections

  private void redirect(Redirect r) {
    String op = r.op();
    boolean writes = switch (op) {
      case ">", ">>", ">|", "<>", "&>", "&>>" -> true;
      case ">&" -> !r.target().matches("[0-9]+-?|-");
      default -> false;
    };
    if (!writes) {
      return;
    }
    String target = r.target();
    if (harmlessSink(target)) {
      return;
    }
    String label = r.written() + " " + display(target);
    if (DISK.matcher(target).matches()) {
      forbid(label, "it overwrites a disk");
    } else if (SYSTEM_FILE.matcher(target).matches()) {
      forbid(label, "it overwrites a system file");
    } else {
      change(label, "writes a file");
    }
  }

  private static boolean harmlessSink(String target) {
    return target.equals("/dev/null") || target.equals("/dev/stdout") || target.equals("/dev/stderr")
        || target.equals("/dev/tty") || target.equals("/dev/zero") || target.matches("/dev/fd/[0-9]+");
  }

  // ---- commands

  private void words(List<String> w, int i, String stdin) {
    if (i >= w.size()) {
      return;
    }
    String first = w.get(i);
    String name = base(first);
    if (dynamic(name)) {
      opaque(display(first), "is a command whose name is only known at run time");
      return;
    }
    var versioned = VERSIONED.matcher(name);
    if (versioned.matches()) {
      name = versioned.group(1);
    }
    switch (name) {
      case "" -> { }
      case "env" -> env(w, i, stdin);
      case "sudo", "doas", "pkexec", "runuser", "su", "sudoedit" -> escalation(name, w, i, stdin);
      case "nohup", "builtin", "unbuffer", "chronic", "coproc", "setsid", "busybox", "toybox",
          "caffeinate" -> words(w, operand(w, i + 1, "", Set.of()), stdin);
      case "command" -> {
        int j = operand(w, i + 1, "", Set.of());
        if (!hasFlagBefore(w, i + 1, j, "-v", "-V")) {
          words(w, j, stdin);
        }
      }
      case "exec" -> words(w, operand(w, i + 1, "a", Set.of()), stdin);
      case "time" -> words(w, operand(w, i + 1, "fo", Set.of("--format", "--output")), stdin);
      case "nice" -> words(w, operand(w, i + 1, "n", Set.of("--adjustment")), stdin);
      case "ionice" -> {
        int j = operand(w, i + 1, "cn", Set.of("--class", "--classdata"));
        if (!hasFlagBefore(w, i + 1, j, "-p", "-P", "-u")) {
          words(w, j, stdin);
        }
      }
      case "timeout" -> words(w, operand(w, i + 1, "sk", Set.of("--signal", "--kill-after")) + 1,
          stdin);
      case "stdbuf" -> words(w, operand(w, i + 1, "ioe", Set.of("--input", "--output", "--error")),
          stdin);
      case "xargs" -> words(w, operand(w, i + 1, "adEILnPs", Set.of("--arg-file", "--delimiter",
          "--max-args", "--max-procs", "--max-chars", "--process-slot-var")), null);
      case "flock" -> flock(w, i, stdin);
      case "watch" -> watch(w, i);
      case "eval" -> {
        if (i + 1 < w.size()) {
          nested(String.join(" ", w.subList(i + 1, w.size())), "eval");
        }
      }
      case "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "rbash", "yash", "posh", "csh",
          "tcsh" -> shell(name, w, i, stdin);
      case "find" -> find(w, i);
      case "git" -> git(w, i);
      case "gh" -> gh(w, i);
      case "npm" -> npm(w, i);
      case "pnpm" -> pnpm(w, i);
      case "yarn" -> yarn(w, i);
      case "bun" -> bun(w, i);
      case "pip" -> pip(w, i + 1, base(first));
      case "python", "py", "pypy", "pypy3" -> python(w, i);
      case "uv" -> uv(w, i);
      case "pipx", "poetry", "conda", "mamba", "micromamba", "apt", "apt-get", "aptitude", "dnf",
          "yum", "microdnf", "zypper", "apk", "brew", "cargo", "go", "gem", "bundle", "bundler",
          "composer", "snap", "flatpak", "dotnet", "twine", "helm", "vsce", "ovsx", "flit",
          "hatch" -> packages(name, w, i);
      case "pacman", "yay", "paru" -> pacman(name, w, i);
      case "nix-env" -> {
        if (hasFlagPrefix(w, i + 1, "-i", "--install", "-u", "--upgrade")) {
          action(ActionClass.INSTALL_PACKAGE, "nix-env -i");
        }
      }
      case "mvn", "mvnw" -> {
        for (String a : rest(w, i)) {
          if (a.equals("deploy") || a.startsWith("deploy:") || a.equals("release:perform")) {
            remote("mvn " + a, "publishes artifacts");
          }
        }
      }
      case "gradle", "gradlew" -> {
        for (String a : rest(w, i)) {
          String task = a.substring(a.lastIndexOf(':') + 1);
          if (task.startsWith("publish") && !task.contains("MavenLocal")) {
            remote("gradle " + display(a), "publishes artifacts");
          }
        }
      }
      case "curl" -> curl(w, i);
      case "wget" -> wget(w, i);
      case "nc", "ncat", "netcat", "socat", "telnet" -> {
        if (!onlyInfo(w, i)) {
          action(ActionClass.ACCESS_NETWORK, name);
        }
      }
      case "http", "https", "xh", "xhs" -> {
        if (!onlyInfo(w, i)) {
          action(ActionClass.ACCESS_NETWORK, name,
              GitHubTargets.httpieReachesApi(name, w, i) ? Boundary.GITHUB_API : null);
        }
      }
      case "ssh" -> {
        if (!onlyInfo(w, i)) {
          action(ActionClass.ACCESS_NETWORK, name);
          change(name, "runs commands on another machine");
        }
      }
      case "sftp", "ftp", "aria2c" -> {
        if (!onlyInfo(w, i)) {
          action(ActionClass.ACCESS_NETWORK, name);
          change(name, "transfers files");
        }
      }
      case "scp", "rsync" -> copyRemote(name, w, i);
      case "rm" -> rm(w, i);
      case "mv" -> {
        change("mv", "moves files");
        for (String a : operands(w, i + 1)) {
          if (systemPath(a)) {
            forbid(joined(w, i), "it destroys the system or a home directory");
            break;
          }
        }
      }
      case "cp", "ln", "mkdir", "touch", "rmdir", "install", "unlink", "link", "mkfifo", "mknod",
          "chattr", "setfacl", "split", "csplit", "rename", "ed", "ex" -> change(name, "changes files");
      case "patch" -> {
        if (!hasFlag(w, i + 1, "--dry-run")) {
          change(name, "changes files");
        }
      }
      case "mktemp" -> {
        if (!hasFlag(w, i + 1, "-u", "--dry-run")) {
          change(name, "creates a file");
        }
      }
      case "truncate", "shred" -> {
        change(name, "changes files");
        for (String a : operands(w, i + 1)) {
          if (DISK.matcher(a).matches()) {
            forbid(joined(w, i), "it overwrites a disk");
            break;
          }
        }
      }
      case "chmod", "chown", "chgrp" -> permissions(name, w, i);
      case "tee" -> tee(w, i);
      case "dd" -> dd(w, i);
      case "sed" -> {
        if (sedInPlace(w, i)) {
          change("sed -i", "edits files in place");
        }
      }
      case "perl" -> {
        if (perlInPlace(w, i)) {
          change("perl -i", "edits files in place");
        }
      }
      case "awk", "gawk" -> {
        List<String> args = rest(w, i);
        for (int k = 0; k < args.size(); k++) {
          String a = args.get(k);
          if (a.equals("-iinplace") || a.equals("--include=inplace")
              || ((a.equals("-i") || a.equals("--include")) && k + 1 < args.size()
                  && args.get(k + 1).equals("inplace"))) {
            change(name + " -i inplace", "edits files in place");
            break;
          }
        }
      }
      case "sort" -> {
        if (hasFlagPrefix(w, i + 1, "-o", "--output")) {
          change("sort -o", "writes a file");
        }
      }
      case "tar" -> {
        if (tarWrites(w, i)) {
          change("tar", "writes files");
        }
      }
      case "unzip" -> {
        if (!clusterHasAny(w, i + 1, "ltvZpz")) {
          change("unzip", "writes files");
        }
      }
      case "zip", "jar" -> change(name, "writes files");
      case "7z", "7za", "7zr" -> {
        List<String> args = operands(w, i + 1);
        if (!args.isEmpty() && Set.of("a", "u", "d", "x", "e", "rn").contains(args.get(0))) {
          change(name + " " + args.get(0), "writes files");
        }
      }
      case "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "unzstd", "lz4", "lzma",
          "unlzma", "pigz", "compress", "uncompress" -> {
        if (!hasFlag(w, i + 1, "--stdout", "--to-stdout", "--list", "--test", "--help", "--version")
            && !clusterHasAny(w, i + 1, "cltVh")) {
          change(name, "compresses or decompresses files in place");
        }
      }
      case "kill" -> kill(w, i);
      case "pkill", "killall" -> change(name, "stops processes");
      case "killall5" -> forbid(name, "it kills every process");
      case "crontab" -> {
        if (!hasFlag(w, i + 1, "-l")) {
          change(name, "changes scheduled jobs");
        }
      }
      case "systemctl" -> systemctl(w, i);
      case "service", "launchctl" -> change(name, "changes system services");
      case "shutdown", "reboot", "halt", "poweroff" -> forbid(name, "it shuts down or restarts the machine");
      case "init", "telinit" -> {
        if (!operands(w, i + 1).isEmpty()) {
          forbid(joined(w, i), "it shuts down or restarts the machine");
        }
      }
      case "mkfs", "mke2fs", "mkswap", "mkdosfs", "mkntfs", "fdisk", "sfdisk", "cfdisk", "gdisk",
          "sgdisk", "parted", "wipefs", "blkdiscard", "kexec", "swapoff" ->
          forbid(name, "it destroys a disk or the running system");
      case "nsenter", "unshare", "chroot", "pivot_root", "switch_root", "mount", "umount", "capsh" ->
          forbid(name, "container or namespace escape");
      case "insmod", "rmmod", "modprobe" -> forbid(name, "it changes the running kernel");
      case "sysctl" -> {
        for (String a : rest(w, i)) {
          if (a.contains("=") || a.equals("-w") || a.equals("--write") || a.equals("-p")
              || a.equals("--load") || a.equals("--system")) {
            forbid("sysctl " + display(a), "it changes the running kernel");
            break;
          }
        }
      }
      case "docker", "podman", "nerdctl", "docker-compose", "podman-compose" -> containers(name, w, i);
      default -> {
        if (name.startsWith("mkfs.")) {
          forbid(name, "it destroys a disk or the running system");
        }
      }
    }
  }

  // ---- wrappers

  private void env(List<String> w, int i, String stdin) {
    int j = i + 1;
    while (j < w.size()) {
      String a = w.get(j);
      if (a.equals("--")) {
        j++;
        break;
      }
      if (a.equals("-u") || a.equals("--unset") || a.equals("-C") || a.equals("--chdir")
          || a.equals("-P")) {
        j += 2;
      } else if (a.equals("-S") || a.equals("--split-string")) {
        if (j + 1 < w.size()) {
          nested(w.get(j + 1), "env -S");
        }
        return;
      } else if (a.startsWith("--split-string=")) {
        nested(a.substring("--split-string=".length()), "env -S");
        return;
      } else if (a.startsWith("-S") && !a.startsWith("--")) {
        nested(a.substring(2), "env -S");
        return;
      } else if (a.startsWith("-")) {
        j++;
      } else {
        break;
      }
    }
    while (j < w.size() && ASSIGNMENT.matcher(w.get(j)).matches()) {
      j++;
    }
    words(w, j, stdin);
  }

  private void escalation(String name, List<String> w, int i, String stdin) {
    forbid(name, "privilege escalation");
    switch (name) {
      case "su" -> {
        String cmd = valueOf(w, i + 1, "-c", "--command");
        if (cmd != null) {
          nested(cmd, "su -c");
        }
      }
      case "runuser" -> {
        String cmd = valueOf(w, i + 1, "-c", "--command");
        if (cmd != null) {
          nested(cmd, "runuser -c");
        } else {
          words(w, operand(w, i + 1, "ugGw", Set.of("--user", "--group")), stdin);
        }
      }
      case "sudo" -> {
        int j = operand(w, i + 1, "ugCDhprtTU", Set.of("--user", "--group", "--close-from",
            "--chdir", "--host", "--prompt", "--role", "--type", "--command-timeout", "--other-user"));
        if (hasFlagBefore(w, i + 1, j, "-e", "--edit", "-l", "--list", "-v", "--validate", "-k",
            "-K")) {
          return;
        }
        while (j < w.size() && ASSIGNMENT.matcher(w.get(j)).matches()) {
          j++;
        }
        words(w, j, stdin);
      }
      case "doas" -> words(w, operand(w, i + 1, "uC", Set.of()), stdin);
      case "pkexec" -> words(w, operand(w, i + 1, "", Set.of("--user")), stdin);
      default -> { }
    }
  }

  private void flock(List<String> w, int i, String stdin) {
    int file = operand(w, i + 1, "wE", Set.of("--timeout", "--conflict-exit-code"));
    if (file >= w.size()) {
      return;
    }
    String cmd = valueOf(w, file + 1, "-c", "--command");
    if (cmd != null) {
      nested(cmd, "flock -c");
    } else {
      words(w, operand(w, file + 1, "", Set.of()), stdin);
    }
  }

  private void watch(List<String> w, int i) {
    int j = operand(w, i + 1, "nq", Set.of("--interval"));
    if (j >= w.size()) {
      return;
    }
    if (hasFlagBefore(w, i + 1, j, "-x", "--exec")) {
      words(w, j, null);
    } else {
      nested(String.join(" ", w.subList(j, w.size())), "watch");
    }
  }

  private void shell(String name, List<String> w, int i, String stdin) {
    boolean command = false;
    boolean fromStdin = false;
    int j = i + 1;
    while (j < w.size()) {
      String a = w.get(j);
      if (a.equals("--") || a.equals("-")) {
        j++;
        break;
      }
      if (a.startsWith("--")) {
        j += a.equals("--rcfile") || a.equals("--init-file") ? 2 : 1;
        continue;
      }
      if ((a.startsWith("-") || a.startsWith("+")) && a.length() > 1) {
        boolean value = false;
        for (int k = 1; k < a.length(); k++) {
          char c = a.charAt(k);
          if (c == 'c') {
            command = true;
          } else if (c == 's') {
            fromStdin = true;
          } else if (c == 'o' || c == 'O') {
            value = true;
          }
        }
        j += value ? 2 : 1;
        continue;
      }
      break;
    }
    if (command) {
      if (j < w.size()) {
        nested(w.get(j), name + " -c");
      }
    } else if (j < w.size() && !fromStdin) {
      // Runs a script file: what it does is not on the command line.
    } else if (stdin != null) {
      nested(stdin, name);
    } else {
      opaque(name, "runs commands it reads from standard input");
    }
  }

  private void nested(String script, String label) {
    if (nesting + 1 > MAX_NESTING) {
      opaque(label, "nests shells too deeply to follow");
      return;
    }
    List<SimpleCommand> commands;
    try {
      commands = ShellParser.parse(script, 0);
    } catch (ShellSyntaxException e) {
      opaque(label, "runs a script that cannot be parsed (" + display(e.getMessage()) + ")");
      return;
    }
    CommandClassifier inner = new CommandClassifier(nesting + 1);
    inner.all(commands);
    out.addAll(inner.out);
  }

  private void find(List<String> w, int i) {
    int j = i + 1;
    while (j < w.size() && (w.get(j).equals("-H") || w.get(j).equals("-L") || w.get(j).equals("-P")
        || w.get(j).startsWith("-O"))) {
      j++;
    }
    if (j < w.size() && w.get(j).equals("-D")) {
      j += 2;
    }
    List<String> roots = new ArrayList<>();
    while (j < w.size() && !w.get(j).startsWith("-") && !w.get(j).equals("(")
        && !w.get(j).equals("!")) {
      roots.add(w.get(j++));
    }
    for (int k = j; k < w.size(); k++) {
      String a = w.get(k);
      switch (a) {
        case "-exec", "-execdir", "-ok", "-okdir" -> {
          int e = k + 1;
          while (e < w.size() && !w.get(e).equals(";") && !w.get(e).equals("+")) {
            e++;
          }
          words(w.subList(k + 1, e), 0, null);
          k = e;
        }
        case "-delete" -> {
          change("find -delete", "deletes files");
          for (String root : roots) {
            if (systemPath(root)) {
              forbid("find " + display(root) + " -delete", "it destroys the system or a home directory");
              break;
            }
          }
        }
        case "-fprint", "-fprint0", "-fprintf", "-fls" -> change("find " + a, "writes a file");
        default -> { }
      }
    }
  }

  // ---- git and GitHub

  private void git(List<String> w, int i) {
    int k = i + 1;
    boolean remoteConfigOnLine = false;
    while (k < w.size()) {
      String a = w.get(k);
      if (a.equals("-c") || a.equals("--config-env")) {
        // -c remote.origin.pushurl=… or url.….pushInsteadOf=… sends a push elsewhere
        String kv = k + 1 < w.size() ? w.get(k + 1).toLowerCase(Locale.ROOT) : "";
        remoteConfigOnLine |= a.equals("--config-env") || kv.startsWith("remote.")
            || kv.startsWith("url.") || dynamic(kv);
        k += 2;
      } else if (a.startsWith("--config-env=")) {
        remoteConfigOnLine = true;
        k++;
      } else if (Set.of("-C", "--git-dir", "--work-tree", "--namespace",
          "--super-prefix", "--attr-source", "--list-cmds").contains(a)) {
        k += 2;
      } else if (a.startsWith("-")) {
        k++;
      } else {
        break;
      }
    }
    if (k >= w.size()) {
      return;
    }
    String sub = w.get(k);
    if (dynamic(sub)) {
      opaque("git " + display(sub), "is a git command only known at run time");
      return;
    }
    String label = "git " + sub;
    List<String> args = w.subList(k + 1, w.size());
    if (sub.equals("push")) {
      List<PushTarget> targets = pushTargets(args);
      if (targets != null) {
        Finding push =
            new Finding(Kind.ACTION, ActionClass.PUSH, label, "would push to a remote", targets);
        out.add(!remoteConfigOnLine && GitHubTargets.pushGoesToGitHost(args)
            ? push.judgedAt(Boundary.GIT_PUSH) : push);
      }
      return;
    }
    if (GIT_COMMITS.contains(sub)) {
      if (sub.equals("commit") && args.contains("--dry-run")) {
        return;
      }
      if (args.contains("--abort") || args.contains("--quit") || args.contains("--edit-todo")) {
        change(label, "changes the repository");
      } else if (!args.contains("--show-current-patch")) {
        action(ActionClass.COMMIT, label);
      }
      return;
    }
    if (GIT_READS.contains(sub) || !gitChanges(sub, args, label)) {
      return;
    }
    change(label, GIT_CHANGES.contains(sub) || gitKnownConditional(sub)
        ? "changes the repository"
        : "is a git command not known to be read-only");
  }

  private static boolean gitKnownConditional(String sub) {
    return Set.of("stash", "tag", "branch", "config", "remote", "worktree", "submodule", "notes",
        "reflog", "symbolic-ref", "apply", "archive", "format-patch", "bundle", "sparse-checkout",
        "hash-object", "interpret-trailers").contains(sub);
  }

  /** Whether a git subcommand that is not a plain read changes state with these arguments. */
  private boolean gitChanges(String sub, List<String> args, String label) {
    List<String> positional = args.stream().filter(a -> !a.startsWith("-")).toList();
    String first = positional.isEmpty() ? "" : positional.get(0);
    return switch (sub) {
      case "stash" -> !(first.equals("list") || first.equals("show"));
      case "tag" -> {
        boolean writes = anyOf(args, "-d", "--delete", "-a", "--annotate", "-s", "--sign", "-u",
            "--local-user", "-m", "--message", "-F", "--file", "-f", "--force")
            || anyPrefix(args, "-m", "--message=", "-F", "--file=");
        boolean lists = anyOf(args, "-l", "--list", "-v", "--verify")
            || anyPrefix(args, "-n", "--contains", "--no-contains", "--points-at", "--merged",
                "--no-merged", "--sort", "--format", "--column");
        yield writes || (!positional.isEmpty() && !lists);
      }
      case "branch" -> {
        boolean writes = anyOf(args, "-d", "-D", "--delete", "-m", "-M", "--move", "-c", "-C",
            "--copy", "-f", "--force", "-u", "--unset-upstream", "--edit-description", "-t",
            "--track", "--no-track") || anyPrefix(args, "--set-upstream-to", "--track=");
        boolean lists = anyOf(args, "-l", "--list", "-a", "--all", "-r", "--remotes", "-v", "-vv",
            "--verbose", "--show-current") || anyPrefix(args, "--contains", "--no-contains",
            "--merged", "--no-merged", "--points-at", "--sort", "--format", "--column");
        yield writes || (!positional.isEmpty() && !lists);
      }
      case "config" -> gitConfigWrites(args);
      case "remote" -> !(args.isEmpty() || Set.of("-v", "--verbose", "show", "get-url").contains(args.get(0)));
      case "worktree" -> !first.equals("list");
      case "submodule" -> {
        if (first.equals("foreach")) {
          int at = args.indexOf("foreach");
          if (at + 1 < args.size()) {
            nested(String.join(" ", args.subList(at + 1, args.size())), "git submodule foreach");
          }
          yield false;
        }
        yield !(first.isEmpty() || first.equals("status") || first.equals("summary"));
      }
      case "notes" -> !(first.isEmpty() || first.equals("list") || first.equals("show"));
      case "reflog" -> first.equals("expire") || first.equals("delete");
      case "symbolic-ref" -> positional.size() >= 2 || anyOf(args, "-d", "--delete");
      case "apply" -> !(anyOf(args, "--check", "--stat", "--numstat", "--summary")
          && !args.contains("--apply"));
      case "archive" -> anyOf(args, "-o", "--output") || anyPrefix(args, "--output=");
      case "format-patch" -> !args.contains("--stdout");
      case "bundle" -> !(first.equals("verify") || first.equals("list-heads"));
      case "sparse-checkout" -> !first.equals("list");
      case "hash-object" -> args.contains("-w");
      case "interpret-trailers" -> args.contains("--in-place");
      default -> true;
    };
  }

  private static boolean gitConfigWrites(List<String> args) {
    if (anyOf(args, "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color",
        "--get-colorbool", "-l", "--list")) {
      return false;
    }
    if (anyOf(args, "--unset", "--unset-all", "--add", "--replace-all", "--rename-section",
        "--remove-section", "-e", "--edit")) {
      return true;
    }
    List<String> positional = new ArrayList<>();
    for (int k = 0; k < args.size(); k++) {
      String a = args.get(k);
      if (Set.of("-f", "--file", "--blob", "--type", "--default", "--comment").contains(a)) {
        k++;
      } else if (!a.startsWith("-")) {
        positional.add(a);
      }
    }
    if (positional.isEmpty()) {
      return false;
    }
    String first = positional.get(0);
    if (first.equals("get") || first.equals("list")) {
      return false;
    }
    if (Set.of("set", "unset", "rename-section", "remove-section", "edit").contains(first)) {
      return true;
    }
    return positional.size() >= 2;
  }

  /** The refs a {@code git push} would update, or null for a dry run. */
  private static List<PushTarget> pushTargets(List<String> args) {
    boolean force = false;
    boolean delete = false;
    boolean all = false;
    boolean tags = false;
    boolean mirror = false;
    boolean prune = false;
    List<String> positional = new ArrayList<>();
    for (int k = 0; k < args.size(); k++) {
      String a = args.get(k);
      if (a.equals("--")) {
        positional.addAll(args.subList(k + 1, args.size()));
        break;
      }
      switch (a) {
        case "--force", "--force-if-includes" -> force = true;
        case "--delete" -> delete = true;
        case "--all", "--branches" -> all = true;
        case "--tags" -> tags = true;
        case "--mirror" -> mirror = true;
        case "--prune" -> prune = true;
        case "--dry-run" -> {
          return null;
        }
        case "--repo", "--receive-pack", "--exec", "--push-option" -> k++;
        default -> {
          if (a.startsWith("--force-with-lease")) {
            force = true;
          } else if (a.startsWith("--")) {
            // another long option, with any value attached
          } else if (a.startsWith("-") && a.length() > 1) {
            for (int c = 1; c < a.length(); c++) {
              char ch = a.charAt(c);
              if (ch == 'f') {
                force = true;
              } else if (ch == 'd') {
                delete = true;
              } else if (ch == 'n') {
                return null;
              } else if (ch == 'o') {
                if (c == a.length() - 1) {
                  k++;
                }
                break;
              }
            }
          } else {
            positional.add(a);
          }
        }
      }
    }
    Set<UpdateKind> kinds = force
        ? EnumSet.of(UpdateKind.CREATE, UpdateKind.UPDATE, UpdateKind.FORCE)
        : EnumSet.of(UpdateKind.CREATE, UpdateKind.UPDATE);
    List<PushTarget> targets = new ArrayList<>();
    if (mirror || prune) {
      targets.add(new PushTarget(null, EnumSet.allOf(UpdateKind.class)));
    }
    if (all) {
      targets.add(new PushTarget("refs/heads/" + PushTarget.SOME, kinds));
    }
    if (tags) {
      targets.add(new PushTarget("refs/tags/" + PushTarget.SOME, kinds));
    }
    List<String> refspecs = positional.size() > 1 ? positional.subList(1, positional.size()) : List.of();
    for (int k = 0; k < refspecs.size(); k++) {
      String spec = refspecs.get(k);
      if (spec.equals("tag") && k + 1 < refspecs.size()) {
        targets.add(new PushTarget("refs/tags/" + refspecs.get(++k), delete ? EnumSet.of(UpdateKind.DELETE) : kinds));
        continue;
      }
      Set<UpdateKind> these = kinds;
      if (spec.startsWith("+")) {
        spec = spec.substring(1);
        these = EnumSet.of(UpdateKind.CREATE, UpdateKind.UPDATE, UpdateKind.FORCE);
      }
      int colon = spec.indexOf(':');
      String dst;
      if (delete) {
        dst = spec;
        these = EnumSet.of(UpdateKind.DELETE);
      } else if (colon == 0) {
        dst = spec.substring(1);
        these = EnumSet.of(UpdateKind.DELETE);
      } else if (colon > 0) {
        dst = colon + 1 < spec.length() ? spec.substring(colon + 1) : spec.substring(0, colon);
      } else {
        dst = spec;
      }
      targets.add(new PushTarget(qualifiedRef(dst), these));
    }
    if (targets.isEmpty()) {
      targets.add(new PushTarget("refs/heads/" + PushTarget.SOME,
          delete ? EnumSet.of(UpdateKind.DELETE) : kinds));
    }
    return targets;
  }

  private static String qualifiedRef(String dst) {
    String ref;
    if (dst.startsWith("refs/")) {
      ref = dst;
    } else if (dst.isEmpty() || dst.equals("HEAD") || dst.equals("@")) {
      ref = "refs/heads/" + PushTarget.SOME;
    } else {
      ref = "refs/heads/" + dst;
    }
    return ref.replace('*', ShellParser.DYNAMIC);
  }

  private void gh(List<String> w, int i) {
    List<String> positional = new ArrayList<>();
    for (int k = i + 1; k < w.size(); k++) {
      String a = w.get(k);
      if (a.equals("-R") || a.equals("--repo") || a.equals("--hostname")) {
        k++;
      } else if (!a.startsWith("-")) {
        positional.add(a);
      }
    }
    if (positional.isEmpty()) {
      return;
    }
    String group = positional.get(0);
    String sub = positional.size() > 1 ? positional.get(1) : "";
    String label = display("gh " + group + (sub.isEmpty() ? "" : " " + sub));
    if (dynamic(group) || dynamic(sub)) {
      opaque(label, "is a gh command only known at run time");
      return;
    }
    int from = out.size();
    boolean github = gh(group, sub, label, w, i) && GitHubTargets.ghTalksToGitHub(w, i);
    if (github) {
      // What changes GitHub's state goes through GitHub's API; local effects (a checkout, gh's
      // own credentials, an extension installed) stay the command policy's.
      for (int k = from; k < out.size(); k++) {
        Finding f = out.get(k);
        if (f.kind() == Kind.REMOTE_CHANGE || (f.kind() == Kind.ACTION
            && f.action() != ActionClass.INSTALL_PACKAGE)) {
          out.set(k, f.judgedAt(Boundary.GITHUB_API));
        }
      }
    }
  }

  /** The findings of one gh command; false when it may talk to another place than GitHub's API. */
  private boolean gh(String group, String sub, String label, List<String> w, int i) {
    switch (group) {
      case "pr" -> {
        switch (sub) {
          case "create", "new" -> action(ActionClass.OPEN_PULL_REQUEST, label);
          case "merge", "review", "comment", "close", "edit", "ready", "reopen", "lock", "unlock",
              "update-branch" -> action(ActionClass.PUBLISH_REVIEW_OR_MERGE, label);
          case "checkout", "co" -> change(label, "switches the worktree to another branch");
          default -> { }
        }
      }
      case "issue" -> {
        switch (sub) {
          case "create", "new", "edit", "comment", "close", "reopen", "delete", "transfer", "lock",
              "unlock", "pin", "unpin", "develop" -> action(ActionClass.WRITE_TRACKER, label);
          default -> { }
        }
      }
      case "release" -> {
        if (Set.of("create", "upload", "edit", "delete", "delete-asset").contains(sub)) {
          remote(label, "publishes a release");
        }
      }
      case "repo" -> {
        if (Set.of("create", "delete", "edit", "rename", "archive", "unarchive", "fork", "sync",
            "deploy-key").contains(sub)) {
          remote(label, "changes a repository on GitHub");
        } else if (sub.equals("clone") || sub.equals("set-default")) {
          change(label, "changes local files");
        }
      }
      case "api" -> {
        return ghApi(w, i);
      }
      case "workflow", "run", "cache" -> {
        if (Set.of("run", "enable", "disable", "rerun", "cancel", "delete").contains(sub)) {
          remote(label, "changes state on GitHub");
        }
      }
      case "secret", "variable", "label", "gist", "ruleset" -> {
        if (Set.of("set", "delete", "remove", "create", "edit", "clone").contains(sub)) {
          remote(label, "changes state on GitHub");
        }
      }
      case "extension", "ext", "extensions" -> {
        if (sub.equals("install") || sub.equals("upgrade")) {
          action(ActionClass.INSTALL_PACKAGE, label);
        } else if (sub.equals("remove")) {
          change(label, "changes gh's extensions");
        }
      }
      case "auth" -> {
        if (Set.of("login", "logout", "refresh", "setup-git", "switch").contains(sub)) {
          change(label, "changes gh's credentials");
        }
      }
      default -> { }
    }
    return true;
  }

  /** The finding of a {@code gh api} call; false when its endpoint is a URL of another host. */
  private boolean ghApi(List<String> w, int i) {
    String method = null;
    String endpoint = "";
    boolean fields = false;
    boolean mutation = false;
    boolean seenApi = false;
    for (int k = i + 1; k < w.size(); k++) {
      String a = w.get(k);
      if (a.contains("mutation")) {
        mutation = true;
      }
      if (!a.startsWith("-")) {
        if (seenApi && endpoint.isEmpty()) {
          endpoint = a;
        }
        seenApi |= a.equals("api");
        continue;
      }
      GhValueFlag.Value methodFlag = GhValueFlag.METHOD.at(w, k);
      if (Set.of("-H", "--header", "-q", "--jq", "-t", "--template", "--cache", "-p", "--preview",
          "-R", "--repo", "--hostname").contains(a)) {
        k++;
      } else if (methodFlag != null) {
        method = methodFlag.text();
        k = methodFlag.last();
      } else if (Set.of("-f", "-F", "--field", "--raw-field", "--input").contains(a)) {
        fields = true;
        if (k + 1 < w.size() && w.get(k + 1).contains("mutation")) {
          mutation = true;
        }
        k++;
      } else if (a.startsWith("--field=") || a.startsWith("--raw-field=") || a.startsWith("--input=")
          || (a.startsWith("-f") || a.startsWith("-F")) && a.length() > 2) {
        fields = true;
      }
    }
    if (endpoint.equals("graphql")) {
      if (mutation) {
        remote("gh api graphql", "changes state on GitHub");
      }
      return true;
    }
    String m = method != null ? method.toUpperCase(Locale.ROOT) : fields ? "POST" : "GET";
    if (!m.equals("GET") && !m.equals("HEAD")) {
      remote("gh api -X " + display(m), "changes state on GitHub");
    }
    return GitHubTargets.ghEndpointIsGitHub(endpoint);
  }

  // ---- packages

  private void npm(List<String> w, int i) {
    int s = operand(w, i + 1, "w", Set.of("--prefix", "--workspace", "--registry", "--cache",
        "--userconfig", "--loglevel", "--tag"));
    if (s >= w.size()) {
      return;
    }
    String sub = w.get(s);
    String label = "npm " + display(sub);
    switch (sub) {
      case "install", "i", "in", "ins", "inst", "insta", "instal", "isnt", "isnta", "isntal",
          "isntall", "add", "ci", "clean-install", "ic", "install-clean", "isntall-clean",
          "install-test", "it", "install-ci-test", "cit", "update", "up", "upgrade", "udpate" ->
          action(ActionClass.INSTALL_PACKAGE, label);
      case "publish", "unpublish", "deprecate", "dist-tag", "owner", "access" ->
          remote(label, "changes what the npm registry serves");
      case "uninstall", "remove", "rm", "r", "un", "unlink", "link", "ln", "dedupe", "ddp",
          "prune", "version", "init", "create", "pkg" -> change(label, "changes the project's files");
      case "audit" -> {
        if (w.subList(s + 1, w.size()).contains("fix")) {
          action(ActionClass.INSTALL_PACKAGE, "npm audit fix");
        }
      }
      default -> { }
    }
  }

  private void pnpm(List<String> w, int i) {
    int s = operand(w, i + 1, "CF", Set.of("--dir", "--filter", "--workspace"));
    if (s >= w.size()) {
      return;
    }
    String sub = w.get(s);
    String label = "pnpm " + display(sub);
    switch (sub) {
      case "install", "i", "add", "update", "up", "upgrade", "install-test", "it" ->
          action(ActionClass.INSTALL_PACKAGE, label);
      case "publish" -> remote(label, "changes what the npm registry serves");
      case "remove", "rm", "uninstall", "un", "link", "ln", "unlink", "prune", "dedupe" ->
          change(label, "changes the project's files");
      default -> { }
    }
  }

  private void yarn(List<String> w, int i) {
    int s = operand(w, i + 1, "", Set.of("--cwd"));
    if (s >= w.size()) {
      if (!onlyInfo(w, i) || i + 1 == w.size()) {
        action(ActionClass.INSTALL_PACKAGE, "yarn");
      }
      return;
    }
    String sub = w.get(s);
    String next = s + 1 < w.size() ? w.get(s + 1) : "";
    String label = "yarn " + display(sub);
    switch (sub) {
      case "install", "add", "upgrade", "up", "upgrade-interactive" ->
          action(ActionClass.INSTALL_PACKAGE, label);
      case "global" -> {
        if (next.equals("add") || next.equals("upgrade")) {
          action(ActionClass.INSTALL_PACKAGE, "yarn global " + next);
        }
      }
      case "publish" -> remote(label, "changes what the npm registry serves");
      case "npm" -> {
        if (next.equals("publish")) {
          remote("yarn npm publish", "changes what the npm registry serves");
        }
      }
      case "remove", "unlink", "link" -> change(label, "changes the project's files");
      default -> { }
    }
  }

  private void bun(List<String> w, int i) {
    int s = operand(w, i + 1, "", Set.of("--cwd"));
    if (s >= w.size()) {
      return;
    }
    String sub = w.get(s);
    String label = "bun " + display(sub);
    switch (sub) {
      case "install", "i", "add", "a", "update" -> action(ActionClass.INSTALL_PACKAGE, label);
      case "publish" -> remote(label, "changes what the npm registry serves");
      case "remove", "rm", "unlink", "link" -> change(label, "changes the project's files");
      default -> { }
    }
  }

  private void pip(List<String> w, int from, String tool) {
    int s = operand(w, from, "", Set.of("--proxy", "--log", "--cache-dir", "--python", "--timeout",
        "--retries", "--exists-action", "--trusted-host", "--cert", "--client-cert"));
    if (s >= w.size()) {
      return;
    }
    String sub = w.get(s);
    switch (sub) {
      case "install" -> action(ActionClass.INSTALL_PACKAGE, tool + " install");
      case "uninstall", "download", "wheel" -> change(tool + " " + sub, "changes installed packages or files");
      default -> { }
    }
  }

  private void python(List<String> w, int i) {
    for (int k = i + 1; k < w.size(); k++) {
      String a = w.get(k);
      String module = null;
      if (a.equals("-m") && k + 1 < w.size()) {
        module = w.get(++k);
      } else if (a.startsWith("-m") && a.length() > 2) {
        module = a.substring(2);
      } else if (a.equals("-c") || !a.startsWith("-")) {
        return;
      } else if (a.equals("-W") || a.equals("-X")) {
        k++;
      }
      if (module != null) {
        if (module.equals("pip") || module.equals("pip3")) {
          pip(w, k + 1, "python -m pip");
        }
        return;
      }
    }
  }

  private void uv(List<String> w, int i) {
    int s = operand(w, i + 1, "", Set.of("--directory", "--project", "--cache-dir", "--config-file"));
    if (s >= w.size()) {
      return;
    }
    String sub = w.get(s);
    String next = s + 1 < w.size() ? w.get(s + 1) : "";
    switch (sub) {
      case "pip" -> {
        if (next.equals("install") || next.equals("sync")) {
          action(ActionClass.INSTALL_PACKAGE, "uv pip " + next);
        } else if (next.equals("uninstall")) {
          change("uv pip uninstall", "changes installed packages");
        }
      }
      case "add", "sync" -> action(ActionClass.INSTALL_PACKAGE, "uv " + sub);
      case "tool" -> {
        if (next.equals("install") || next.equals("upgrade")) {
          action(ActionClass.INSTALL_PACKAGE, "uv tool " + next);
        }
      }
      case "publish" -> remote("uv publish", "publishes a package");
      case "remove", "lock", "init", "venv" -> change("uv " + sub, "changes the project's files");
      default -> { }
    }
  }

  /** Package managers whose first operand says what they do. */
  private void packages(String tool, List<String> w, int i) {
    int s = switch (tool) {
      case "apt", "apt-get", "aptitude" -> operand(w, i + 1, "oct", Set.of("--option",
          "--config-file", "--target-release"));
      case "cargo" -> {
        int k = i + 1;
        while (k < w.size() && w.get(k).startsWith("+")) {
          k++;
        }
        yield operand(w, k, "Z", Set.of("--config", "--color", "--manifest-path"));
      }
      case "go" -> operand(w, i + 1, "C", Set.of());
      case "dnf", "yum", "microdnf", "zypper" -> operand(w, i + 1, "", Set.of("--repo",
          "--enablerepo", "--disablerepo", "--setopt"));
      default -> operand(w, i + 1, "", Set.of());
    };
    if (s >= w.size()) {
      return;
    }
    String sub = w.get(s);
    String next = s + 1 < w.size() ? w.get(s + 1) : "";
    String label = tool + " " + display(sub);
    Set<String> installs = switch (tool) {
      case "pipx" -> Set.of("install", "inject", "upgrade", "upgrade-all", "reinstall", "reinstall-all");
      case "poetry" -> Set.of("add", "install", "update", "sync");
      case "conda", "mamba", "micromamba" -> Set.of("install", "create", "update", "upgrade");
      case "apt", "apt-get", "aptitude" -> Set.of("install", "reinstall", "upgrade", "full-upgrade",
          "dist-upgrade", "build-dep", "safe-upgrade");
      case "dnf", "yum", "microdnf" -> Set.of("install", "reinstall", "upgrade", "update",
          "groupinstall", "localinstall", "distro-sync");
      case "zypper" -> Set.of("install", "in", "update", "up", "dist-upgrade", "dup");
      case "apk" -> Set.of("add", "upgrade");
      case "brew" -> Set.of("install", "reinstall", "upgrade", "tap");
      case "cargo" -> Set.of("install", "add", "binstall");
      case "go" -> Set.of("install", "get");
      case "gem" -> Set.of("install", "update");
      case "bundle", "bundler" -> Set.of("install", "add", "update");
      case "composer" -> Set.of("require", "install", "update");
      case "snap" -> Set.of("install", "refresh");
      case "flatpak" -> Set.of("install", "update");
      default -> Set.of();
    };
    Set<String> publishes = switch (tool) {
      case "poetry", "flit", "hatch", "vsce", "ovsx" -> Set.of("publish");
      case "cargo" -> Set.of("publish", "yank", "owner");
      case "gem" -> Set.of("push", "yank", "owner");
      case "twine" -> Set.of("upload");
      case "helm" -> Set.of("push");
      default -> Set.of();
    };
    Set<String> changes = switch (tool) {
      case "pipx", "poetry", "conda", "mamba", "micromamba", "brew", "gem", "composer", "snap",
          "flatpak" -> Set.of("uninstall", "remove", "rm", "untap", "lock");
      case "apt", "apt-get", "aptitude", "dnf", "yum", "microdnf", "zypper" -> Set.of("remove",
          "purge", "autoremove", "erase", "update", "clean", "rm");
      case "apk" -> Set.of("del", "update");
      case "cargo" -> Set.of("remove", "rm", "uninstall", "update");
      default -> Set.of();
    };
    if (installs.contains(sub)) {
      action(ActionClass.INSTALL_PACKAGE, label);
    } else if (publishes.contains(sub)) {
      remote(label, "publishes a package");
    } else if (changes.contains(sub)) {
      change(label, "changes installed packages");
    } else if (tool.equals("dotnet")) {
      if (sub.equals("add") && w.subList(s, w.size()).contains("package")) {
        action(ActionClass.INSTALL_PACKAGE, "dotnet add package");
      } else if ((sub.equals("tool") || sub.equals("workload"))
          && (next.equals("install") || next.equals("update"))) {
        action(ActionClass.INSTALL_PACKAGE, "dotnet " + sub + " " + next);
      } else if (sub.equals("nuget") && next.equals("push")) {
        remote("dotnet nuget push", "publishes a package");
      }
    }
  }

  private void pacman(String tool, List<String> w, int i) {
    for (String a : rest(w, i)) {
      if (a.matches("-S[yuwdv]*") || a.matches("-U[a-z]*") || a.equals("--sync")
          || a.equals("--upgrade")) {
        action(ActionClass.INSTALL_PACKAGE, tool + " " + a);
        return;
      }
      if (a.matches("-R[a-z]*") || a.equals("--remove")) {
        change(tool + " " + a, "changes installed packages");
        return;
      }
    }
  }

  // ---- network

  private void curl(List<String> w, int i) {
    boolean network = false;
    boolean writes = false;
    boolean sends = false;
    for (int k = i + 1; k < w.size(); k++) {
      String a = w.get(k);
      if (a.startsWith("--")) {
        int eq = a.indexOf('=');
        String opt = eq < 0 ? a : a.substring(0, eq);
        if (opt.equals("--version") || opt.equals("--help") || opt.equals("--manual")) {
          continue;
        }
        network = true;
        switch (opt) {
          case "--output", "--dump-header", "--cookie-jar", "--trace", "--trace-ascii",
              "--libcurl", "--output-dir", "--etag-save", "--hsts", "--alt-svc" -> {
            String v = eq >= 0 ? a.substring(eq + 1) : k + 1 < w.size() ? w.get(++k) : "-";
            writes |= !v.equals("-");
          }
          case "--remote-name", "--remote-name-all" -> writes = true;
          case "--request" -> {
            String v = eq >= 0 ? a.substring(eq + 1) : k + 1 < w.size() ? w.get(++k) : "GET";
            sends |= !isRead(v);
          }
          default -> {
            if (opt.startsWith("--data") || opt.startsWith("--form") || opt.equals("--upload-file")
                || opt.equals("--json")) {
              sends = true;
            }
          }
        }
        continue;
      }
      if (a.startsWith("-") && a.length() > 1) {
        for (int c = 1; c < a.length(); c++) {
          char ch = a.charAt(c);
          if (ch == 'V' || ch == 'h' || ch == 'M') {
            continue;
          }
          network = true;
          if (ch == 'O') {
            writes = true;
            continue;
          }
          if ("oDcXdFTAbCeEHKmPQrtuUwxyYz".indexOf(ch) >= 0) {
            String v = c + 1 < a.length() ? a.substring(c + 1) : k + 1 < w.size() ? w.get(++k) : "";
            if (ch == 'o' || ch == 'D' || ch == 'c') {
              writes |= !v.equals("-");
            } else if (ch == 'X') {
              sends |= !isRead(v);
            } else if (ch == 'd' || ch == 'F' || ch == 'T') {
              sends = true;
            }
            break;
          }
        }
        continue;
      }
      network = true;
    }
    if (!network) {
      return;
    }
    action(ActionClass.ACCESS_NETWORK, "curl",
        GitHubTargets.curlReachesOnlyApi(w, i) ? Boundary.GITHUB_API : null);
    if (writes) {
      change("curl", "writes a file");
    }
    if (sends) {
      change("curl", "sends data to a server");
    }
  }

  private static boolean isRead(String method) {
    String m = method.toUpperCase(Locale.ROOT);
    return m.equals("GET") || m.equals("HEAD") || m.equals("OPTIONS");
  }

  private void wget(List<String> w, int i) {
    if (onlyInfo(w, i)) {
      return;
    }
    boolean toStdout = false;
    boolean sends = false;
    for (int k = i + 1; k < w.size(); k++) {
      String a = w.get(k);
      if (a.equals("--spider") || a.equals("--output-document=-")
          || (a.equals("--output-document") && k + 1 < w.size() && w.get(k + 1).equals("-"))) {
        toStdout = true;
      } else if (a.startsWith("--post-") || a.startsWith("--body-") || (a.startsWith("--method")
          && !isRead(a.contains("=") ? a.substring(a.indexOf('=') + 1)
              : k + 1 < w.size() ? w.get(k + 1) : "GET"))) {
        sends = true;
      } else if (a.startsWith("-") && !a.startsWith("--")) {
        int o = a.indexOf('O');
        if (o > 0) {
          String v = o + 1 < a.length() ? a.substring(o + 1) : k + 1 < w.size() ? w.get(k + 1) : "";
          toStdout |= v.equals("-");
        }
      }
    }
    action(ActionClass.ACCESS_NETWORK, "wget",
        GitHubTargets.wgetReachesOnlyApi(w, i) ? Boundary.GITHUB_API : null);
    if (!toStdout) {
      change("wget", "writes a file");
    }
    if (sends) {
      change("wget", "sends data to a server");
    }
  }

  private void copyRemote(String name, List<String> w, int i) {
    if (onlyInfo(w, i)) {
      return;
    }
    boolean remote = false;
    boolean dryRun = false;
    for (String a : rest(w, i)) {
      if (a.equals("--dry-run") || (name.equals("rsync") && a.matches("-[a-zA-Z]*n[a-zA-Z]*"))) {
        dryRun = true;
      } else if (!a.startsWith("-") && remoteOperand(a)) {
        remote = true;
      }
    }
    if (remote) {
      action(ActionClass.ACCESS_NETWORK, name);
    }
    if (!dryRun) {
      change(name, "copies files");
    }
  }

  private static boolean remoteOperand(String a) {
    if (a.startsWith("rsync://") || a.startsWith("scp://") || a.startsWith("sftp://")
        || a.startsWith("ssh://")) {
      return true;
    }
    int colon = a.indexOf(':');
    return colon > 0 && a.substring(0, colon).indexOf('/') < 0;
  }

  // ---- files and the system

  private void rm(List<String> w, int i) {
    boolean recursive = false;
    boolean noPreserveRoot = false;
    List<String> targets = new ArrayList<>();
    boolean options = true;
    for (String a : rest(w, i)) {
      if (options && a.equals("--")) {
        options = false;
      } else if (options && a.startsWith("--")) {
        recursive |= a.equals("--recursive");
        noPreserveRoot |= a.equals("--no-preserve-root");
      } else if (options && a.startsWith("-") && a.length() > 1) {
        recursive |= a.indexOf('r') > 0 || a.indexOf('R') > 0;
      } else {
        targets.add(a);
      }
    }
    change("rm", "deletes files");
    if (noPreserveRoot) {
      forbid(joined(w, i), "it destroys the system or a home directory");
      return;
    }
    if (recursive) {
      for (String t : targets) {
        if (systemPath(t)) {
          forbid(joined(w, i), "it destroys the system or a home directory");
          return;
        }
      }
    }
  }

  private void permissions(String name, List<String> w, int i) {
    change(name, "changes file permissions or owners");
    boolean recursive = false;
    List<String> operands = new ArrayList<>();
    for (String a : rest(w, i)) {
      if (a.equals("-R") || a.equals("--recursive") || a.matches("-[a-zA-Z]*R[a-zA-Z]*")) {
        recursive = true;
      } else if (!a.startsWith("-") || (name.equals("chmod") && a.matches("-[rwxXst]+"))) {
        operands.add(a);
      }
    }
    if (name.equals("chmod") && !operands.isEmpty()) {
      String mode = operands.get(0);
      if (mode.matches("[ugoa]*[+=][rwxXt]*s[rwxXst]*(,.*)?") || mode.matches(".*,[ugoa]*[+=][rwxXt]*s.*")
          || mode.matches("0*[2467][0-7]{3}")) {
        forbid(joined(w, i), "privilege escalation (a setuid or setgid file)");
        return;
      }
    }
    if (recursive) {
      for (String t : operands.subList(Math.min(1, operands.size()), operands.size())) {
        if (systemPath(t)) {
          forbid(joined(w, i), "it destroys the system or a home directory");
          return;
        }
      }
    }
  }

  private void tee(List<String> w, int i) {
    for (String a : operands(w, i + 1)) {
      if (harmlessSink(a)) {
        continue;
      }
      if (DISK.matcher(a).matches()) {
        forbid("tee " + display(a), "it overwrites a disk");
      } else if (SYSTEM_FILE.matcher(a).matches()) {
        forbid("tee " + display(a), "it overwrites a system file");
      } else {
        change("tee", "writes a file");
      }
    }
  }

  private void dd(List<String> w, int i) {
    for (String a : rest(w, i)) {
      if (!a.startsWith("of=")) {
        continue;
      }
      String target = a.substring(3);
      if (harmlessSink(target)) {
        continue;
      }
      if (DISK.matcher(target).matches()) {
        forbid("dd " + display(a), "it overwrites a disk");
      } else if (SYSTEM_FILE.matcher(target).matches()) {
        forbid("dd " + display(a), "it overwrites a system file");
      } else {
        change("dd", "writes a file");
      }
    }
  }

  private static boolean sedInPlace(List<String> w, int i) {
    for (int k = i + 1; k < w.size(); k++) {
      String a = w.get(k);
      if (a.startsWith("--in-place")) {
        return true;
      }
      if (a.equals("-e") || a.equals("-f") || a.equals("-l") || a.equals("--expression")
          || a.equals("--file") || a.equals("--line-length")) {
        k++;
        continue;
      }
      if (a.startsWith("-") && !a.startsWith("--")) {
        for (int c = 1; c < a.length(); c++) {
          char ch = a.charAt(c);
          if (ch == 'i') {
            return true;
          }
          if (ch == 'e' || ch == 'f' || ch == 'l') {
            break;
          }
        }
      }
    }
    return false;
  }

  private static boolean perlInPlace(List<String> w, int i) {
    for (int k = i + 1; k < w.size(); k++) {
      String a = w.get(k);
      if (a.equals("-e") || a.equals("-E")) {
        k++;
        continue;
      }
      if (!a.startsWith("-") || a.equals("--")) {
        return false;
      }
      for (int c = 1; c < a.length(); c++) {
        char ch = a.charAt(c);
        if (ch == 'i') {
          return true;
        }
        if ("eEMmIxlC0d".indexOf(ch) >= 0) {
          break;
        }
      }
    }
    return false;
  }

  private static boolean tarWrites(List<String> w, int i) {
    if (i + 1 >= w.size()) {
      return false;
    }
    String first = w.get(i + 1);
    if (!first.startsWith("-")) {
      return first.matches("[a-zA-Z]*[cxruA][a-zA-Z]*");
    }
    for (String a : rest(w, i)) {
      if (Set.of("--create", "--extract", "--get", "--append", "--update", "--delete",
          "--concatenate", "--catenate").contains(a)) {
        return true;
      }
      if (a.startsWith("-") && !a.startsWith("--") && a.matches("-[a-zA-Z]*[cxruA][a-zA-Z]*")) {
        return true;
      }
    }
    return false;
  }

  private void kill(List<String> w, int i) {
    int j = i + 1;
    if (j < w.size() && (w.get(j).equals("-s") || w.get(j).equals("-n"))) {
      j += 2;
    } else if (j < w.size() && w.get(j).startsWith("-") && !w.get(j).equals("--")) {
      if (w.get(j).equals("-l") || w.get(j).equals("-L")) {
        return;
      }
      j++;
    }
    if (j < w.size() && w.get(j).equals("--")) {
      j++;
    }
    change("kill", "stops processes");
    for (String a : w.subList(Math.min(j, w.size()), w.size())) {
      if (a.equals("-1") || a.equals("1")) {
        forbid(joined(w, i), "it kills every process");
        return;
      }
    }
  }

  private void systemctl(List<String> w, int i) {
    List<String> ops = operands(w, i + 1);
    if (ops.isEmpty()) {
      return;
    }
    String verb = ops.get(0);
    if (Set.of("poweroff", "reboot", "halt", "kexec", "emergency", "rescue", "soft-reboot")
        .contains(verb)) {
      forbid("systemctl " + display(verb), "it shuts down or restarts the machine");
    } else if (!Set.of("status", "show", "list-units", "list-unit-files", "list-timers",
        "list-sockets", "list-dependencies", "list-jobs", "is-active", "is-enabled", "is-failed",
        "is-system-running", "cat", "help", "get-default", "show-environment").contains(verb)) {
      change("systemctl " + display(verb), "changes system services");
    }
  }

  private void containers(String tool, List<String> w, int i) {
    int s = operand(w, i + 1, "Hcl", Set.of("--host", "--context", "--log-level", "--config",
        "-f", "--file", "-p", "--project-name"));
    String sub = s < w.size() ? w.get(s) : "";
    String next = s + 1 < w.size() ? w.get(s + 1) : "";
    String label = display(tool + (sub.isEmpty() ? "" : " " + sub));
    change(label, "controls containers");
    boolean compose = tool.endsWith("-compose") || sub.equals("compose");
    String verb = compose && sub.equals("compose") ? next : sub;
    if (verb.equals("push") || (sub.equals("image") && next.equals("push"))) {
      remote(label, "publishes an image");
    }
    boolean starts = Set.of("run", "create", "exec").contains(verb)
        || (sub.equals("container") && Set.of("run", "create", "exec").contains(next))
        || (compose && verb.equals("up"));
    if (!starts) {
      return;
    }
    List<String> args = rest(w, s);
    for (int k = 0; k < args.size(); k++) {
      String a = args.get(k);
      String v = k + 1 < args.size() ? args.get(k + 1) : "";
      boolean escape = a.equals("--privileged")
          || a.matches("--(pid|ipc|uts|userns|cgroupns|network|net)=host")
          || (a.matches("--(pid|ipc|uts|userns|cgroupns)") && v.equals("host"))
          || a.matches("--cap-add=(?i)(all|sys_admin|sys_module|sys_ptrace)")
          || (a.equals("--cap-add") && v.matches("(?i)all|sys_admin|sys_module|sys_ptrace"))
          || (a.startsWith("--security-opt") && (a + " " + v).contains("unconfined"))
          || mountsHost(volumeOf(a, v))
          || (a.equals("--mount") && mountsHostSpec(v))
          || (a.startsWith("--mount=") && mountsHostSpec(a.substring(8)));
      if (escape) {
        forbid(display(tool + " " + verb + " " + a), "container or namespace escape");
        return;
      }
    }
  }

  private static String volumeOf(String option, String next) {
    if (option.equals("-v") || option.equals("--volume")) {
      return next;
    }
    if (option.startsWith("--volume=")) {
      return option.substring("--volume=".length());
    }
    if (option.startsWith("-v") && option.length() > 2) {
      return option.substring(2);
    }
    return null;
  }

  private static boolean mountsHost(String volume) {
    if (volume == null || volume.isEmpty()) {
      return false;
    }
    String source = volume.contains(":") ? volume.substring(0, volume.indexOf(':')) : "";
    return source.equals("/") || source.contains("docker.sock") || source.equals("/proc")
        || source.equals("/sys") || source.equals("/dev");
  }

  private static boolean mountsHostSpec(String spec) {
    for (String part : spec.split(",")) {
      String p = part.strip();
      if (p.equals("source=/") || p.equals("src=/") || (p.startsWith("source=") || p.startsWith("src="))
          && p.contains("docker.sock")) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether a path is the root, a home directory or a top-level system directory, or the whole
   * contents of one ({@code /*}). Run-time parts that may be empty count as empty, so {@code
   * "$DIR/"} is the root.
   */
  static boolean systemPath(String path) {
    StringBuilder b = new StringBuilder();
    for (int k = 0; k < path.length(); k++) {
      char c = path.charAt(k);
      if (c == DYN_NONEMPTY) {
        b.append('x');
      } else if (c != DYN) {
        b.append(c);
      }
    }
    String p = b.toString().replaceAll("/{2,}", "/");
    while (true) {
      if (p.endsWith("/*") || p.endsWith("/.")) {
        p = p.substring(0, p.length() - 2);
      } else if (p.length() > 1 && p.endsWith("/")) {
        p = p.substring(0, p.length() - 1);
      } else {
        break;
      }
    }
    if (p.isEmpty()) {
      // "/*", or a run-time part followed by a slash: "$DIR/" is "/" when DIR is empty.
      return path.indexOf('/') >= 0;
    }
    if (p.equals("/") || (p.startsWith("~") && p.indexOf('/') < 0)) {
      return true;
    }
    if (!p.startsWith("/")) {
      return false;
    }
    String[] parts = p.substring(1).split("/");
    return parts.length == 1
        || (parts.length == 2 && (parts[0].equals("home") || parts[0].equals("Users")));
  }

  // ---- findings

  private void action(ActionClass action, String label) {
    action(action, label, null);
  }

  private void action(ActionClass action, String label, Boundary judgedAt) {
    out.add(new Finding(Kind.ACTION, action, display(label), "would " + action.inSentence(), null,
        judgedAt));
  }

  private void change(String label, String what) {
    out.add(new Finding(Kind.STATE_CHANGE, null, display(label), what, null));
  }

  private void remote(String label, String what) {
    out.add(new Finding(Kind.REMOTE_CHANGE, null, display(label), what, null));
  }

  private void forbid(String label, String what) {
    out.add(new Finding(Kind.FORBIDDEN, null, display(label), what, null));
  }

  private void opaque(String label, String what) {
    out.add(new Finding(Kind.OPAQUE, null, display(label), what, null));
  }

  // ---- word helpers

  /**
   * The index of the first operand at or after {@code i}, skipping options. {@code shortValued}
   * lists the short options that take a value (the rest of the cluster, or the next word when the
   * option ends it); {@code longValued} the long options that take the next word as value.
   */
  private static int operand(List<String> w, int i, String shortValued, Set<String> longValued) {
    while (i < w.size()) {
      String a = w.get(i);
      if (a.equals("--")) {
        return i + 1;
      }
      if (a.startsWith("--") && a.length() > 2) {
        i += a.indexOf('=') < 0 && longValued.contains(a) ? 2 : 1;
        continue;
      }
      if (a.startsWith("-") && a.length() > 1) {
        if (longValued.contains(a)) {
          i += 2;
          continue;
        }
        boolean takesNext = false;
        for (int k = 1; k < a.length(); k++) {
          if (shortValued.indexOf(a.charAt(k)) >= 0) {
            takesNext = k == a.length() - 1;
            break;
          }
        }
        i += takesNext ? 2 : 1;
        continue;
      }
      return i;
    }
    return i;
  }

  private static List<String> rest(List<String> w, int i) {
    return w.subList(Math.min(i + 1, w.size()), w.size());
  }

  private static List<String> operands(List<String> w, int from) {
    List<String> ops = new ArrayList<>();
    boolean options = true;
    for (int k = from; k < w.size(); k++) {
      String a = w.get(k);
      if (options && a.equals("--")) {
        options = false;
      } else if (!options || !a.startsWith("-") || a.length() == 1) {
        ops.add(a);
      }
    }
    return ops;
  }

  private static boolean hasFlag(List<String> w, int from, String... flags) {
    for (int k = from; k < w.size(); k++) {
      for (String f : flags) {
        if (w.get(k).equals(f)) {
          return true;
        }
      }
    }
    return false;
  }

  private static boolean hasFlagBefore(List<String> w, int from, int to, String... flags) {
    return hasFlag(w.subList(0, Math.min(to, w.size())), from, flags);
  }

  private static boolean hasFlagPrefix(List<String> w, int from, String... flags) {
    for (int k = from; k < w.size(); k++) {
      for (String f : flags) {
        if (w.get(k).startsWith(f)) {
          return true;
        }
      }
    }
    return false;
  }

  /** Whether a short option cluster after {@code from} holds any of {@code letters}. */
  private static boolean clusterHasAny(List<String> w, int from, String letters) {
    for (int k = from; k < w.size(); k++) {
      String a = w.get(k);
      if (a.startsWith("-") && !a.startsWith("--")) {
        for (int c = 1; c < a.length(); c++) {
          if (letters.indexOf(a.charAt(c)) >= 0) {
            return true;
          }
        }
      }
    }
    return false;
  }

  private static boolean onlyInfo(List<String> w, int i) {
    for (String a : rest(w, i)) {
      if (!Set.of("-h", "--help", "-V", "--version", "-v").contains(a)) {
        return false;
      }
    }
    return true;
  }

  /** The value of the first {@code -c}-like option at or after {@code from}, or null. */
  private static String valueOf(List<String> w, int from, String shortOpt, String longOpt) {
    for (int k = from; k < w.size(); k++) {
      String a = w.get(k);
      if ((a.equals(shortOpt) || a.equals(longOpt)) && k + 1 < w.size()) {
        return w.get(k + 1);
      }
      if (a.startsWith(longOpt + "=")) {
        return a.substring(longOpt.length() + 1);
      }
    }
    return null;
  }

  private static boolean anyOf(List<String> args, String... options) {
    for (String a : args) {
      for (String o : options) {
        if (a.equals(o)) {
          return true;
        }
      }
    }
    return false;
  }

  private static boolean anyPrefix(List<String> args, String... prefixes) {
    for (String a : args) {
      for (String p : prefixes) {
        if (a.startsWith(p)) {
          return true;
        }
      }
    }
    return false;
  }

  private static String base(String word) {
    int slash = word.lastIndexOf('/');
    return slash < 0 ? word : word.substring(slash + 1);
  }

  private static boolean dynamic(String s) {
    return s.indexOf(DYN) >= 0 || s.indexOf(DYN_NONEMPTY) >= 0;
  }

  private static String joined(List<String> w, int i) {
    return String.join(" ", w.subList(i, Math.min(w.size(), i + 6)));
  }

  /** A word or label as one short line a person can read: run-time parts show as {@code $…}. */
  static String display(String s) {
    StringBuilder b = new StringBuilder();
    for (int k = 0; k < s.length() && b.length() < 80; k++) {
      char c = s.charAt(k);
      if (c == DYN || c == DYN_NONEMPTY) {
        b.append("$…");
      } else if (c < 0x20 || c == 0x7f || c == '`') {
        b.append(c == '`' ? '\'' : ' ');
      } else {
        b.append(c);
      }
    }
    if (b.length() >= 80) {
      b.setLength(77);
      b.append('…');
    }
    return b.toString();
  }
}
