package dev.pushgate.sandbox;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * The fixed profile of a hosted terminal ("native" for a terminal): an interactive shell under
 * bubblewrap with the host file system read-only except the home directory and the session's
 * working directory, the network of the host, and the secret directories of the home unreadable.
 * No read token and no push gateway: those belong to runs. A host that cannot wrap the shell is
 * refused with the reason; nothing here ever hands out a host shell.
 *
 * <p>Nothing here starts a process: it decides the command line and environment that a launcher
 * (or {@code pushgate shell}) runs on its own terminal.
 */
public final class TerminalProfile {
  /** Under the home directory: unreadable from a terminal (the same list runs are denied). */
  public static final List<String> DENIED_READS = SandboxPlanner.SECRET_READ_DENY;

  /** Variables a terminal keeps from its caller: locale, terminal, who it is, git's identity. */
  static final Set<String> KEPT_NAMES = Set.of(
      "PATH", "USER", "LOGNAME", "LANG", "LANGUAGE", "TERM", "COLORTERM", "TZ",
      "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL");

  /** A name that looks like it holds a credential is dropped even when it is kept above. */
  private static final Pattern TOKEN_LIKE = Pattern.compile(
      "(?i).*(TOKEN|SECRET|PASSW|CREDENTIAL|API_?KEY|PRIVATE|AUTH(?!OR)|SESSION|COOKIE).*|PUSHGATE_.*");

  private static final String DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin";

  /** Host sockets of the user's desktop session (keyrings, gpg-agent, ssh-agent, D-Bus). */
  static final String USER_RUNTIME = "/run/user";

  /**
   * Sockets that run programs outside the sandbox for whoever may connect: the container engines
   * (root for the docker group), systemd's private socket and the system D-Bus (root outside, for
   * a caller that is root). A read-only mount does not stop connect(2), so each is covered.
   */
  static final List<String> PRIVILEGED_SOCKETS = List.of(
      "/run/docker.sock", "/var/run/docker.sock",
      "/run/podman/podman.sock", "/var/run/podman/podman.sock",
      "/run/containerd/containerd.sock", "/run/snapd.socket", "/run/libvirt/libvirt-sock",
      "/run/systemd/private", "/run/dbus/system_bus_socket", "/var/run/dbus/system_bus_socket");

  private TerminalProfile() {}

  /**
   * What the session is asked to be.
   *
   * @param platform the host platform
   * @param searchPath where bwrap and script are looked up ({@code PATH} style)
   * @param home the caller's home directory
   * @param workdir the session's working directory
   * @param shell the shell to run (absolute), or null for the caller's {@code SHELL} or /bin/sh
   * @param callerEnv the caller's environment; only the basics survive
   * @param accountHome the home the account database gives the user, or null: its credential
   *     paths are denied too, so that a {@code HOME} pointing elsewhere does not uncover them
   */
  public record Request(Platform platform, String searchPath, Path home, Path workdir,
      String shell, Map<String, String> callerEnv, Path accountHome) {
    public Request {
      callerEnv = callerEnv == null ? Map.of() : Map.copyOf(callerEnv);
    }

    public Request(Platform platform, String searchPath, Path home, Path workdir, String shell,
        Map<String, String> callerEnv) {
      this(platform, searchPath, home, workdir, shell, callerEnv, null);
    }
  }

  /**
   * What a launcher runs in its own PTY: exactly this command line with exactly this environment
   * (nothing else of its own), from any directory.
   */
  public record Session(List<String> argv, Map<String, String> env, String home, String workdir,
      String shell, List<String> deniedPaths) {
    public Session {
      argv = List.copyOf(argv);
      env = Map.copyOf(env);
      deniedPaths = List.copyOf(deniedPaths);
    }
  }

  /** The host cannot give a sandboxed terminal; the message says why and what to do. */
  public static final class Unsupported extends Exception {
    private static final long serialVersionUID = 1L;

    public Unsupported(String reason) {
      super(reason);
    }
  }

  /** Decides the session, or says why this host or request gets none. */
  public static Session plan(Request r) throws Unsupported {
    return plan(r, TerminalProfile::rootOwned);
  }

  /**
   * {@code trusted} says whether a tool found on the search path may be run: the shell can write
   * the home, so a {@code bwrap} it planted in {@code ~/.local/bin} must never be what opens the
   * next terminal (as the host shell it is).
   */
  static Session plan(Request r, java.util.function.Predicate<Path> trusted) throws Unsupported {
    if (r.platform() == null || !r.platform().linuxLike()) {
      String what = r.platform() == Platform.MACOS
          ? "the Seatbelt terminal profile is not built yet"
          : "this platform has no native sandbox";
      throw new Unsupported("a sandboxed terminal is offered on Linux and WSL2 (bubblewrap) only;"
          + " " + what + ". No shell was started: pushgate never opens an unsandboxed one.");
    }
    String bwrap = find(r.searchPath(), "bwrap", trusted);
    if (bwrap == null) {
      throw new Unsupported("bubblewrap (bwrap) is not installed on this host, so the terminal"
          + " cannot be sandboxed; install it (sudo apt-get install bubblewrap). Only a bwrap in"
          + " a PATH directory that root owns and nobody else can write counts. No shell was"
          + " started: pushgate never opens an unsandboxed one.");
    }
    String script = find(r.searchPath(), "script", trusted);
    if (script == null) {
      throw new Unsupported("script (util-linux) is not installed on this host; the terminal"
          + " needs it for a terminal of its own inside the sandbox (sudo apt-get install"
          + " bsdutils). No shell was started.");
    }
    String home = existingDirectory(r.home(), "the home directory");
    String workdir = existingDirectory(r.workdir(), "the working directory");
    if (home.equals("/")) {
      throw new Unsupported("the home directory is /: a terminal whose home is the whole host"
          + " cannot be confined; set HOME to your home directory");
    }
    if (workdir.equals("/")) {
      throw new Unsupported("the working directory is /: the whole host would be writable;"
          + " choose a project directory");
    }
    String shell = shell(r);

    Set<String> deniedSet = new LinkedHashSet<>(deniedPaths(Path.of(home)));
    if (r.accountHome() != null && r.accountHome().isAbsolute()) {
      deniedSet.addAll(deniedPaths(r.accountHome()));
    }
    // Deepest first: a cover mounted inside a cover already there would need a mount point in an
    // empty read-only directory; the other way round the outer one simply hides the inner one.
    List<String> denied = new ArrayList<>(deniedSet);
    denied.sort(Comparator.comparingInt((String p) -> Path.of(p).getNameCount()).reversed());
    for (String d : denied) {
      if (BubblewrapArgv.under(workdir, d)) {
        throw new Unsupported("the working directory " + workdir + " is inside " + d
            + ", which a terminal may not read");
      }
    }

    List<String> a = new ArrayList<>(List.of(bwrap,
        // Network shared on purpose (the profile's "network open"); every other namespace is
        // new, so the shell can neither see nor ptrace the user's other processes (an ssh-agent
        // or gpg-agent holding keys).
        "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
        "--die-with-parent",
        // TIOCSTI: the shell's controlling terminal is script's PTY inside the sandbox, never the
        // caller's; and in a session of its own, not even script (which a process of the same
        // user may ptrace) has the caller's terminal as its controlling terminal.
        "--new-session",
        "--cap-drop", "ALL",
        "--ro-bind", "/", "/",
        "--dev", "/dev",
        "--proc", "/proc",
        "--ro-bind", "/proc/sys", "/proc/sys",
        "--tmpfs", "/tmp"));
    if (Files.isDirectory(Path.of(USER_RUNTIME), LinkOption.NOFOLLOW_LINKS)) {
      a.addAll(List.of("--tmpfs", USER_RUNTIME, "--remount-ro", USER_RUNTIME));
    }
    // The writable pair, parents first so that one inside the other stays writable.
    List<String> writable = new ArrayList<>(new LinkedHashSet<>(List.of(home, workdir)));
    writable.sort(Comparator.comparingInt(p -> Path.of(p).getNameCount()));
    for (String w : writable) {
      a.addAll(List.of("--bind", w, w));
    }
    for (String socket : existing(PRIVILEGED_SOCKETS)) {
      a.addAll(List.of("--ro-bind", "/dev/null", socket));
    }
    // Last, so no bind above can uncover them: each secret directory an empty tmpfs of mode 000,
    // read-only so that not even chmod can open it; a secret file becomes /dev/null.
    for (String d : denied) {
      if (Files.isDirectory(Path.of(d), LinkOption.NOFOLLOW_LINKS)) {
        a.addAll(List.of("--perms", "0000", "--tmpfs", d, "--remount-ro", d));
      } else {
        a.addAll(List.of("--ro-bind", "/dev/null", d));
      }
    }
    a.addAll(List.of("--chdir", workdir, "--",
        script, "--quiet", "--return", "--command", "exec " + SandboxStartScript.quote(shell),
        "/dev/null"));
    return new Session(a, environment(r.callerEnv(), r.home().toString(), shell), home, workdir,
        shell, denied);
  }

  /**
   * Starts the session's sandbox once with a shell that does nothing, so that a bwrap that cannot
   * work here (no user namespaces, a container's seccomp policy) is a refusal with bwrap's reason
   * rather than a terminal that opens and dies. Null when it works, else the reason.
   */
  public static String trial(Session session) throws IOException, InterruptedException {
    List<String> argv = new ArrayList<>(session.argv().subList(0, session.argv().indexOf("--")));
    argv.addAll(List.of("--", session.shell(), "-c", ":"));
    ProcessBuilder pb = new ProcessBuilder(argv)
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
        .redirectOutput(ProcessBuilder.Redirect.DISCARD);
    pb.environment().clear();
    pb.environment().putAll(session.env());
    Process p = pb.start();
    byte[] said = p.getErrorStream().readNBytes(4096);
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      return "bwrap did not start within 30 seconds";
    }
    if (p.exitValue() == 0) {
      return null;
    }
    String text = new String(said, StandardCharsets.UTF_8).strip();
    int nl = text.indexOf('\n');
    text = nl < 0 ? text : text.substring(0, nl);
    return text.isEmpty() ? "bwrap exited " + p.exitValue()
        : dev.pushgate.types.UntrustedText.printable(text);
  }

  /** The environment of the shell: the caller's basics, its home and shell, nothing else. */
  static Map<String, String> environment(Map<String, String> caller, String home, String shell) {
    Map<String, String> env = new TreeMap<>();
    for (Map.Entry<String, String> e : caller.entrySet()) {
      String name = e.getKey();
      if ((KEPT_NAMES.contains(name) || name.startsWith("LC_")) && !TOKEN_LIKE.matcher(name)
          .matches() && !EnvironmentSanitiser.removes(name) && e.getValue() != null
          && e.getValue().indexOf('\0') < 0) {
        env.put(name, e.getValue());
      }
    }
    env.putIfAbsent("PATH", DEFAULT_PATH);
    env.putIfAbsent("TERM", "xterm-256color");
    env.put("HOME", home);
    // script runs its command with $SHELL, and so does everything the user starts.
    env.put("SHELL", shell);
    return env;
  }

  /**
   * Every existing spelling of every secret path of this home: as written, and resolved (a
   * symlinked {@code ~/.ssh}, or a {@code ~/.config} that is a link elsewhere). Mounting over the
   * resolved path covers every other spelling that leads there, a symlink to it anywhere included.
   */
  static List<String> deniedPaths(Path home) {
    Set<String> out = new LinkedHashSet<>();
    for (String rel : DENIED_READS) {
      for (String spelling : DenySpellings.of(home.resolve(rel).toString())) {
        Path p = Path.of(spelling);
        if (Files.exists(p, LinkOption.NOFOLLOW_LINKS) && !Files.isSymbolicLink(p)) {
          out.add(p.toString());
        }
      }
    }
    List<String> sorted = new ArrayList<>(out);
    sorted.sort(Comparator.comparingInt(p -> Path.of(p).getNameCount()));
    return sorted;
  }

  /** The real paths of those of {@code paths} that exist and are not directories. */
  static List<String> existing(List<String> paths) {
    Set<String> out = new LinkedHashSet<>();
    for (String p : paths) {
      try {
        Path real = Path.of(p).toRealPath();
        if (!Files.isDirectory(real)) {
          out.add(real.toString());
        }
      } catch (IOException | InvalidPathException | SecurityException e) {
        // Not on this host.
      }
    }
    return List.copyOf(out);
  }

  private static String shell(Request r) throws Unsupported {
    String shell = r.shell();
    if (shell == null || shell.isEmpty()) {
      shell = r.callerEnv().get("SHELL");
      if (shell == null || !shell.startsWith("/") || !Files.isExecutable(Path.of(shell))) {
        shell = "/bin/sh";
      }
    }
    if (!shell.startsWith("/") || shell.indexOf('\0') >= 0 || shell.contains("\n")) {
      throw new Unsupported("the shell must be an absolute path");
    }
    Path p;
    try {
      p = Path.of(shell).normalize();
    } catch (InvalidPathException e) {
      throw new Unsupported("the shell is not a usable path");
    }
    if (!Files.isRegularFile(p) || !Files.isExecutable(p)) {
      throw new Unsupported("the shell " + p + " is not an executable file on this host");
    }
    return p.toString();
  }

  private static String existingDirectory(Path dir, String what) throws Unsupported {
    if (dir == null) {
      throw new Unsupported(what + " is not known");
    }
    try {
      Path real = dir.toAbsolutePath().normalize().toRealPath();
      if (!Files.isDirectory(real)) {
        throw new Unsupported(what + " " + dir + " is not a directory");
      }
      return real.toString();
    } catch (IOException | InvalidPathException | SecurityException e) {
      throw new Unsupported(what + " " + dir + " does not exist");
    }
  }

  /** Whether a tool and its directory belong to root and nobody else can write them. */
  static boolean rootOwned(Path tool) {
    try {
      for (Path p : List.of(tool.toRealPath(), tool.toRealPath().getParent())) {
        int uid = (Integer) Files.getAttribute(p, "unix:uid");
        int mode = (Integer) Files.getAttribute(p, "unix:mode");
        if (uid != 0 || (mode & 0022) != 0) {
          return false;
        }
      }
      return true;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  static String find(String searchPath, String name,
      java.util.function.Predicate<Path> trusted) {
    if (searchPath == null) {
      return null;
    }
    for (String dir : searchPath.split(":")) {
      if (dir.isEmpty() || !dir.startsWith("/")) {
        continue;
      }
      try {
        Path p = Path.of(dir, name);
        if (Files.isRegularFile(p) && Files.isExecutable(p) && trusted.test(p)) {
          return p.toString();
        }
      } catch (InvalidPathException e) {
        // Not a usable entry: skip it.
      }
    }
    return null;
  }
}
