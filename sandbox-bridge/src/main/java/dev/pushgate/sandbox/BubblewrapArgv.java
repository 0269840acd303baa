package dev.pushgate.sandbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The bubblewrap command line of one launch. The sandbox sees only what is mounted: the system
 * directories read-only, a fresh {@code /dev}, a fresh {@code /proc} with {@code /proc/sys}
 * read-only, an empty {@code /tmp} and home, the spec's bind mounts, the staged files and the
 * bridge sockets; everything else of the host is absent. Denied paths inside a writable mount are
 * covered read-only; secret paths inside any mount are covered by an empty directory or {@code
 * /dev/null}. Nothing here starts a process: the host is only asked what kind of file a path is.
 */
final class BubblewrapArgv {
  /** Read-only system directories, bound or (when they are symlinks, as with merged /usr) linked. */
  static final List<String> SYSTEM_PATHS =
      List.of("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc");

  /** The line the bridge script writes to standard error when the command is about to start. */
  static final String READY = "pushgate-sandbox-ready";

  /**
   * Where the bridge script reads the run's environment. Every variable goes there, none on the
   * command line: every local user can read a command line in {@code /proc/PID/cmdline}, and a
   * harmless name can hold a secret value.
   */
  static final String GUEST_ENV_FILE = "/run/pushgate/env";

  /**
   * The run's writable git config inside: a tmpfs of the sandbox's own, so that nothing written
   * there ever reaches the host, where no git process reads it (docs/sandbox.md, "The agent's git
   * config").
   */
  static final String GUEST_GIT_DIR = "/run/pushgate-git";
  static final String GUEST_GIT_CONFIG = GUEST_GIT_DIR + "/config";

  private BubblewrapArgv() {}

  /** What a host path is, without following a final symlink. */
  enum Kind {
    DIRECTORY,
    FILE,
    SYMLINK,
    OTHER,
    MISSING
  }

  /** Port: what the host has at a path. */
  interface HostView {
    /** The real file system. */
    HostView REAL = new HostView() {
      @Override
      public Kind kind(String path) {
        try {
          BasicFileAttributes a = Files.readAttributes(
              Path.of(path), BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
          if (a.isSymbolicLink()) {
            return Kind.SYMLINK;
          }
          return a.isDirectory() ? Kind.DIRECTORY : a.isRegularFile() ? Kind.FILE : Kind.OTHER;
        } catch (IOException | InvalidPathException | SecurityException e) {
          return Kind.MISSING;
        }
      }

      @Override
      public String linkTarget(String path) {
        try {
          return Files.readSymbolicLink(Path.of(path)).toString();
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
          return null;
        }
      }

      @Override
      public List<String> children(String dir) {
        try (var entries = Files.list(Path.of(dir))) {
          return entries.map(Path::toString).sorted().toList();
        } catch (IOException | InvalidPathException | SecurityException e) {
          return List.of();
        }
      }

      @Override
      public String directoryNamedBy(String file, String prefix) {
        return GitdirFile.namedBy(file, prefix);
      }

      @Override
      public List<String> spellings(String path) {
        return DenySpellings.of(path);
      }
    };

    Kind kind(String path);

    /** The target of a symlink as written, or null. */
    String linkTarget(String path);

    /** The entries of a directory, as paths; empty when it cannot be listed. */
    List<String> children(String dir);

    /**
     * The real path of the directory a {@code .git} file or a {@code commondir} names after
     * {@code prefix}, or null ({@link GitdirFile#namedBy}).
     */
    default String directoryNamedBy(String file, String prefix) {
      return null;
    }

    /** The symlink-resolved spellings of a path ({@link DenySpellings}). */
    default List<String> spellings(String path) {
      return List.of(path);
    }
  }

  /** The programs the command line names, as absolute paths on the host. */
  record Tools(String setpriv, String bwrap, String shell, String socat, String sleep) {}

  /** A file of the launcher's own, bound read-only into the sandbox. */
  record Staged(String hostPath, String guestPath) {}

  /**
   * Everything one launch is built from.
   *
   * @param plan the run's plan: bind mounts, deny paths, working directory
   * @param command the program and arguments to run
   * @param bridges the bridges; {@code hostSocket} is what gets bound
   * @param files staged files, bound read-only
   * @param envFile whether {@link #GUEST_ENV_FILE} is staged and to be read before the command
   * @param home the home directory inside (an empty tmpfs), or null
   * @param emptyDir an empty host directory, bound read-only over deny paths that do not exist
   * @param emptyFile an empty host file, bound read-only over denied git files that do not exist
   * @param user the user bwrap is started as through setpriv, or null to start it as is
   * @param tools the programs
   * @param nonce tells the script's ready line from anything the command prints
   * @param layered host directory to the name-deny layer's mount point showing it: every bind
   *     source at or below such a directory is taken through the layer instead ({@link
   *     NameDenyLayer}); empty without the layer
   * @param toolchains the launcher's toolchain directories under {@code home}, shown read-only at
   *     the same paths over the home's tmpfs ({@link HomeToolchains}); empty for none
   * @param judgedConfigs the repository configs the name-deny layer writes only on the launcher's
   *     judgement ({@link NameDenyLayer#judgedConfigs}): not bound read-only, or git could not
   *     rename onto them; empty without the layer
   */
  record Layout(
      SandboxPlan plan,
      List<String> command,
      List<Bridge> bridges,
      List<Staged> files,
      boolean envFile,
      String home,
      String emptyDir,
      String emptyFile,
      SandboxUser user,
      Tools tools,
      String nonce,
      Map<String, String> layered,
      List<String> toolchains,
      List<String> judgedConfigs) {

    Layout {
      command = List.copyOf(command);
      bridges = List.copyOf(bridges);
      files = List.copyOf(files);
      layered = layered == null ? Map.of() : Map.copyOf(layered);
      toolchains = toolchains == null ? List.of() : List.copyOf(toolchains);
      judgedConfigs = judgedConfigs == null ? List.of() : List.copyOf(judgedConfigs);
    }

    Layout(SandboxPlan plan, List<String> command, List<Bridge> bridges, List<Staged> files,
        boolean envFile, String home, String emptyDir, String emptyFile, SandboxUser user,
        Tools tools, String nonce, Map<String, String> layered, List<String> toolchains) {
      this(plan, command, bridges, files, envFile, home, emptyDir, emptyFile, user, tools, nonce,
          layered, toolchains, List.of());
    }

    Layout(SandboxPlan plan, List<String> command, List<Bridge> bridges, List<Staged> files,
        boolean envFile, String home, String emptyDir, String emptyFile, SandboxUser user,
        Tools tools, String nonce, Map<String, String> layered) {
      this(plan, command, bridges, files, envFile, home, emptyDir, emptyFile, user, tools, nonce,
          layered, List.of());
    }

    Layout(SandboxPlan plan, List<String> command, List<Bridge> bridges, List<Staged> files,
        boolean envFile, String home, String emptyDir, String emptyFile, SandboxUser user,
        Tools tools, String nonce) {
      this(plan, command, bridges, files, envFile, home, emptyDir, emptyFile, user, tools, nonce,
          Map.of());
    }
  }

  /**
   * The command line, the deny paths that do not exist yet and are blocked by an empty directory or
   * file (bwrap creates them on the host as mount points; the launcher removes them afterwards), and
   * what the violation parser needs to know.
   */
  record Built(List<String> argv, List<String> placeholders, ViolationParser.Denials denials) {}

  static Built build(Layout layout, HostView host) {
    SandboxSpec spec = layout.plan().spec();
    FilesystemPolicy fs = layout.plan().filesystem();
    List<String> a = new ArrayList<>();
    if (layout.user() != null) {
      a.addAll(List.of(layout.tools().setpriv(), "--reuid=" + layout.user().uid(),
          "--regid=" + layout.user().gid(), "--clear-groups", "--"));
    }
    a.addAll(List.of(layout.tools().bwrap(), "--unshare-all", "--die-with-parent",
        "--new-session", "--cap-drop", "ALL"));

    List<String> visible = new ArrayList<>();
    for (String p : SYSTEM_PATHS) {
      switch (host.kind(p)) {
        case DIRECTORY -> {
          a.addAll(List.of("--ro-bind", p, p));
          visible.add(p);
        }
        case SYMLINK -> {
          String target = host.linkTarget(p);
          if (target != null) {
            a.addAll(List.of("--symlink", target, p));
            visible.add(p);
          }
        }
        default -> { /* Not on this host. */ }
      }
    }
    a.addAll(List.of("--dev", "/dev", "--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys",
        "--tmpfs", "/tmp", "--tmpfs", GUEST_GIT_DIR));
    visible.addAll(List.of("/dev", "/proc", "/run/pushgate", GUEST_GIT_DIR));

    List<SandboxBindMount> mounts = mounts(spec);
    List<String> shownToolchains = new ArrayList<>();
    String home = layout.home();
    if (home != null && home.startsWith("/") && !home.equals("/") && !home.equals("/tmp")
        && !underAny(home, SYSTEM_PATHS) && !underAny(home, List.of("/dev", "/proc", "/run"))
        && mounts.stream().noneMatch(m -> under(home, m.guestPath()))) {
      a.addAll(List.of("--tmpfs", home));
      // The toolchains on PATH under the home, read-only; never one a mount overlaps.
      for (String t : layout.toolchains()) {
        if (under(t, home) && host.kind(t) == Kind.DIRECTORY
            && mounts.stream().noneMatch(m -> under(t, m.guestPath()) || under(m.guestPath(), t))) {
          a.addAll(List.of("--ro-bind", t, t));
          visible.add(t);
          shownToolchains.add(t);
        }
      }
    }
    for (SandboxBindMount m : mounts) {
      a.addAll(List.of(m.readOnly() ? "--ro-bind" : "--bind", m.hostPath(), m.guestPath()));
      visible.add(m.guestPath());
    }

    // Deny paths inside a writable mount: covered read-only where they exist, blocked by an empty
    // read-only directory where they do not (so git add -A still works: git skips empty dirs).
    List<String> writable = new ArrayList<>();
    Set<String> layeredRoots = new LinkedHashSet<>();
    for (SandboxBindMount m : mounts) {
      if (!m.readOnly()) {
        writable.add(m.guestPath());
        if (layout.layered().containsKey(m.hostPath())) {
          layeredRoots.add(m.guestPath());
        }
      }
    }
    // Each .git of a writable mount, and of a repository directly inside one, is bound onto itself:
    // a mount point cannot be renamed or removed, so the agent cannot swap in a .git of its own,
    // and what is denied inside it is denied in every repository the run can write.
    // Its objects/ too: renamed, it would take the read-only objects/info/alternates placeholder
    // with it and leave room for an alternates file of the agent's own.
    // Only where the sandbox shows them writable: a repository in a read-only mount inside a
    // writable one (a plan run's workdir inside its state directory) stays read-only whole.
    List<String> gitDirs = WritableGitMetadata.gitDirectories(writable, host).stream()
        .filter(g -> writableAt(g, mounts)).toList();
    for (String g : gitDirs) {
      a.addAll(List.of("--bind", g, g));
      if (host.kind(g + "/objects") == Kind.DIRECTORY) {
        a.addAll(List.of("--bind", g + "/objects", g + "/objects"));
      }
    }
    Set<String> denied = new LinkedHashSet<>(fs.writeDeny());
    denied.addAll(WritableGitMetadata.gitFiles(writable, host));
    Set<String> gitDenied = new LinkedHashSet<>();
    Set<String> gitDeniedFiles = new LinkedHashSet<>();
    for (String g : gitDirs) {
      for (String d : GitMetadata.DENIED_DIRECTORIES) {
        gitDenied.add(g + "/" + d);
      }
      for (String f : GitMetadata.DENIED_FILES) {
        gitDeniedFiles.add(g + "/" + f);
      }
    }
    gitDenied.addAll(gitDeniedFiles);
    denied.addAll(gitDenied);
    Set<String> covered = new LinkedHashSet<>();
    Set<String> placeholders = new LinkedHashSet<>();
    Set<String> filePlaceholders = new LinkedHashSet<>();
    for (String p : denied) {
      if (RunPaths.isGlob(p)) {
        continue;
      }
      String root = writable.stream().filter(w -> under(p, w))
          .max(Comparator.comparingInt(BubblewrapArgv::depth)).orElse(null);
      if (root == null || !writableAt(p, mounts)) {
        continue; // outside every writable mount, or in a read-only one inside it: read-only
      }
      switch (host.kind(p)) {
        case DIRECTORY, FILE, OTHER -> {
          if (!(layeredRoots.contains(root) && layout.judgedConfigs().contains(p))) {
            covered.add(p);
          } // else the name-deny layer refuses every write but an upstream it was asked to judge
        }
        case MISSING -> {
          if (layeredRoots.contains(root) && NameDenyLayer.refusesInPlace(p)) {
            continue; // the name-deny layer refuses creating it, and nothing shows in its place
          }
          String first = firstMissing(root, p, host);
          // Inside a .git only the denied entry itself is blocked, never a directory git needs
          // (objects/info of a repository that has none yet).
          boolean inGit = gitDenied.contains(p) || p.contains("/.git/");
          if (first != null && !Path.of(first).getFileName().toString().equals(".git")
              && (!inGit || first.equals(p))) {
            (first.equals(p) && (GitMetadata.isDeniedFile(p) || gitDeniedFiles.contains(p))
                ? filePlaceholders : placeholders)
                .add(first);
          }
        }
        default -> { /* A symlink: its resolved spelling is a deny path of its own. */ }
      }
    }
    for (String p : sortedByDepth(covered)) {
      a.addAll(List.of("--ro-bind", p, p));
    }
    // Below a path bound read-only whole (a protected repository's .git entries) nothing can be
    // written, and bubblewrap could not make a placeholder's mount point there either.
    placeholders.removeIf(p -> covered.stream().anyMatch(c -> !c.equals(p) && under(p, c)));
    filePlaceholders.removeIf(p -> covered.stream().anyMatch(c -> !c.equals(p) && under(p, c)));
    for (String p : sortedByDepth(placeholders)) {
      a.addAll(List.of("--ro-bind", layout.emptyDir(), p));
    }
    for (String p : sortedByDepth(filePlaceholders)) {
      a.addAll(List.of("--ro-bind", layout.emptyFile(), p));
    }

    // Secret paths inside any mount: an empty read-only directory, or /dev/null for a file. The
    // home's own are named again for the toolchains shown from it: the plan's are the appliance's.
    Set<String> secrets = new LinkedHashSet<>(fs.readDeny());
    if (!shownToolchains.isEmpty()) {
      secrets.addAll(HomeToolchains.secretsInside(home, shownToolchains));
    }
    for (String p : sortedByDepth(secrets)) {
      if (RunPaths.isGlob(p) || !underAny(p, visible)) {
        continue;
      }
      switch (host.kind(p)) {
        case DIRECTORY -> a.addAll(List.of("--tmpfs", p, "--remount-ro", p));
        case FILE, OTHER -> a.addAll(List.of("--ro-bind", "/dev/null", p));
        default -> { /* Missing: nothing to read. A symlink: see its resolved spelling. */ }
      }
    }

    List<String> staged = new ArrayList<>();
    for (Staged f : layout.files()) {
      a.addAll(List.of("--ro-bind", f.hostPath(), f.guestPath()));
      staged.add(f.guestPath());
    }
    for (Bridge b : layout.bridges()) {
      a.addAll(List.of("--ro-bind", b.hostSocket().toString(), b.guestSocket()));
    }
    for (String tool : List.of(layout.tools().socat(), layout.tools().sleep())) {
      if (!underAny(tool, visible)) {
        a.addAll(List.of("--ro-bind", tool, tool));
        staged.add(tool);
      }
    }
    visible.addAll(staged);

    String workdir = spec.guestWorkdir() != null ? spec.guestWorkdir()
        : mounts.isEmpty() ? "/" : mounts.get(0).guestPath();
    a.addAll(List.of("--remount-ro", "/", "--chdir", workdir, "--clearenv"));
    a.addAll(List.of("--", layout.tools().shell(), "-c", SandboxStartScript.script(layout), "pushgate-sandbox"));
    a.addAll(layout.command());

    List<String> readDeny = List.copyOf(secrets);
    Set<String> allPlaceholders = new LinkedHashSet<>(placeholders);
    allPlaceholders.addAll(filePlaceholders);
    List<String> blocked = List.copyOf(allPlaceholders);
    Set<String> coveredPaths = Set.copyOf(covered);
    List<String> shown = List.copyOf(visible);
    ViolationParser.Denials denials = new ViolationParser.Denials() {
      @Override
      public boolean hidden(String path) {
        String abs = absolute(path, workdir);
        if (abs == null) {
          return false;
        }
        if (underAny(abs, readDeny)) {
          return true;
        }
        return !underAny(abs, shown) && host.kind(abs) != Kind.MISSING;
      }

      @Override
      public boolean blocked(String path) {
        String abs = absolute(path, workdir);
        return abs != null && underAny(abs, blocked);
      }

      @Override
      public boolean mountedOver(String path) {
        String abs = absolute(path, workdir);
        return abs != null && (underAny(abs, blocked) || coveredPaths.contains(abs));
      }
    };
    return new Built(throughLayer(a, a.indexOf(layout.tools().bwrap()) + 1, layout.layered()),
        blocked, denials);
  }

  /**
   * The argv with each bind source at or below a layered directory taken from the layer's mount
   * point instead, so that every write inside the sandbox (the .git binds included) passes the
   * name-deny layer. Destinations stay as they are. bwrap's options start at {@code from} (after
   * setpriv's own, which end in a {@code --} too).
   */
  static List<String> throughLayer(List<String> argv, int from, Map<String, String> layered) {
    if (layered.isEmpty()) {
      return List.copyOf(argv);
    }
    List<String> out = new ArrayList<>(argv);
    for (int i = from; i + 1 < out.size(); i++) {
      String opt = out.get(i);
      if (opt.equals("--")) {
        break;
      }
      if (!opt.equals("--bind") && !opt.equals("--ro-bind") && !opt.equals("--bind-try")
          && !opt.equals("--ro-bind-try")) {
        continue;
      }
      String src = out.get(i + 1);
      String best = null;
      for (String root : layered.keySet()) {
        if (under(src, root) && (best == null || root.length() > best.length())) {
          best = root;
        }
      }
      if (best != null) {
        out.set(i + 1, layered.get(best) + src.substring(best.length()));
      }
      i += 2;
    }
    return List.copyOf(out);
  }

  /**
   * What the sandbox mounts of the spec, parents first: its bind mounts, and its runner state
   * directories (writable in every mode) where no bind mount covers them already.
   */
  static List<SandboxBindMount> mounts(SandboxSpec spec) {
    List<SandboxBindMount> out = new ArrayList<>(spec.bindMounts());
    for (String dir : spec.runnerStateDirs()) {
      if (out.stream().noneMatch(m -> m.guestPath().equals(dir))) {
        out.add(SandboxBindMount.of(dir, false));
      }
    }
    out.sort(Comparator.comparingInt(m -> depth(m.guestPath())));
    return out;
  }

  /**
   * Whether the sandbox shows {@code path} writable: the deepest of {@code mounts} holding it is
   * writable (of two at one path, the later, mounted over the other).
   */
  static boolean writableAt(String path, List<SandboxBindMount> mounts) {
    SandboxBindMount deepest = null;
    for (SandboxBindMount m : mounts) {
      if (under(path, m.guestPath())
          && (deepest == null || depth(m.guestPath()) >= depth(deepest.guestPath()))) {
        deepest = m;
      }
    }
    return deepest != null && !deepest.readOnly();
  }

  static boolean under(String path, String root) {
    if (root.equals("/")) {
      return path.startsWith("/");
    }
    return path.equals(root) || path.startsWith(root + "/");
  }

  static boolean underAny(String path, List<String> roots) {
    for (String r : roots) {
      if (under(path, r)) {
        return true;
      }
    }
    return false;
  }

  static int depth(String path) {
    return Path.of(path).getNameCount();
  }

  private static List<String> sortedByDepth(Set<String> paths) {
    List<String> out = new ArrayList<>(paths);
    out.sort(Comparator.comparingInt(BubblewrapArgv::depth));
    return out;
  }

  /**
   * The first component of {@code path} below {@code root} that does not exist, or null when the
   * path cannot be created (an existing component is not a directory).
   */
  private static String firstMissing(String root, String path, HostView host) {
    Path r = Path.of(root);
    Path rel = r.relativize(Path.of(path));
    Path cur = r;
    for (Path name : rel) {
      cur = cur.resolve(name);
      Kind k = host.kind(cur.toString());
      if (k == Kind.MISSING) {
        return cur.toString();
      }
      if (k != Kind.DIRECTORY) {
        return null;
      }
    }
    return null;
  }

  static String absolute(String path, String workdir) {
    try {
      Path p = path.startsWith("/") ? Path.of(path) : Path.of(workdir).resolve(path);
      return p.normalize().toString();
    } catch (InvalidPathException e) {
      return null;
    }
  }
}
