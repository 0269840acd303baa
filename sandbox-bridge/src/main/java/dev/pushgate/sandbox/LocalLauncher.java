package dev.pushgate.sandbox;

import dev.pushgate.types.UntrustedText;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The launcher of this host. Under the {@code native} backend on Linux and WSL2 it starts the
 * command in bubblewrap ({@link BubblewrapArgv}), with a per-launch {@link EgressProxy} as the only
 * way out to the network and the launch's bridges on the sandbox's loopback; as root it starts
 * bwrap through setpriv as a user id of the launch's own ({@link OwnSandboxUsers}), or as the
 * {@link SandboxUser} the operator named, and lends it the writable mounts for the run.
 * Under {@code none} it starts the command on the host with the plan's environment and says so.
 * A refused plan is never launched.
 */
public final class LocalLauncher implements SandboxLauncher {
  private static final Logger LOG = LoggerFactory.getLogger(LocalLauncher.class);

  /** The bridge to the run's egress proxy; no launch may name its own bridge so. */
  public static final String PROXY_BRIDGE = "proxy";

  /** The proxy's port inside the sandbox (the next free one when a bridge uses it). */
  public static final int PROXY_PORT = 3128;

  private static final String SAFE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  private static final SecureRandom RANDOM = new SecureRandom();

  /**
   * What the launcher needs of the host.
   *
   * @param platform the host platform
   * @param sandboxUser who bwrap runs as when this process is root, or null for a user id of each
   *     launch's own, from ownUsers
   * @param ownUsers where a launch's own user id comes from
   * @param resolver how the egress proxy resolves host names
   * @param stagingParent where per-launch staging directories are made (must let the sandbox user
   *     through: the system temporary directory does)
   * @param searchPath where bwrap, setpriv, socat and sleep are looked up
   * @param loanRegister where every launcher of the host records the directories it lends (a
   *     directory only root can enter; {@code /run/pushgate/loans})
   */
  public record Settings(
      Platform platform,
      SandboxUser sandboxUser,
      OwnSandboxUsers ownUsers,
      HostResolver resolver,
      Path stagingParent,
      String searchPath,
      Path loanRegister) {

    public Settings {
      if (platform == null || ownUsers == null || resolver == null || stagingParent == null) {
        throw new IllegalArgumentException("launcher settings are incomplete");
      }
      searchPath = searchPath == null ? SAFE_PATH : searchPath;
      loanRegister = loanRegister == null ? LoanRegister.HOST : loanRegister;
    }

    public Settings(Platform platform, SandboxUser sandboxUser, HostResolver resolver,
        Path stagingParent, String searchPath) {
      this(platform, sandboxUser, OwnSandboxUsers.system(), resolver, stagingParent, searchPath,
          LoanRegister.HOST);
    }

    public Settings(Platform platform, SandboxUser sandboxUser, OwnSandboxUsers ownUsers,
        HostResolver resolver, Path stagingParent, String searchPath) {
      this(platform, sandboxUser, ownUsers, resolver, stagingParent, searchPath,
          LoanRegister.HOST);
    }

    /**
     * This host: the detected platform, a user id of each launch's own, the system resolver, the
     * temp dir.
     */
    public static Settings defaults() {
      return new Settings(Platform.current(), null, OwnSandboxUsers.system(), HostResolver.SYSTEM,
          Path.of(System.getProperty("java.io.tmpdir")),
          SAFE_PATH + File.pathSeparator + System.getenv().getOrDefault("PATH", ""));
    }

    /** Every launch as this user, shared by all of them; null for a user id of each one's own. */
    public Settings withSandboxUser(SandboxUser user) {
      return new Settings(platform, user, ownUsers, resolver, stagingParent, searchPath,
          loanRegister);
    }

    public Settings withOwnUsers(OwnSandboxUsers users) {
      return new Settings(platform, sandboxUser, users, resolver, stagingParent, searchPath,
          loanRegister);
    }

    public Settings withResolver(HostResolver resolver) {
      return new Settings(platform, sandboxUser, ownUsers, resolver, stagingParent, searchPath,
          loanRegister);
    }

    public Settings withLoanRegister(Path dir) {
      return new Settings(platform, sandboxUser, ownUsers, resolver, stagingParent, searchPath,
          dir);
    }
  }

  private final Settings settings;

  public LocalLauncher(Settings settings) {
    if (settings == null) {
      throw new IllegalArgumentException("a launcher needs its settings");
    }
    this.settings = settings;
  }

  @Override
  public SandboxProcess launch(LaunchRequest request, SandboxListener listener)
      throws SandboxLaunchException {
    SandboxPlan plan = request.plan();
    if (!plan.verdict().launches()) {
      throw new SandboxLaunchException(
          "not launched: " + plan.verdict().reason(), plan.verdict().waysOut());
    }
    switch (plan.effectiveBackend()) {
      case NONE:
        return unwrapped(request, listener);
      case NATIVE:
        if (!settings.platform().linuxLike()) {
          throw new SandboxLaunchException("the native sandbox on " + settings.platform().id()
              + " is not offered by this launcher (only bubblewrap on Linux and WSL2 is)",
              List.of(WaysOut.SANDBOX_OFF));
        }
        return bubblewrap(request, listener);
      default:
        throw new SandboxLaunchException("the microvm backend is not offered by this launcher",
            List.of("leave the backend unspecified to wrap the run when the host offers a sandbox"));
    }
  }

  /** The {@code none} backend: the command on the host, with the plan's environment. */
  private SandboxProcess unwrapped(LaunchRequest request, SandboxListener listener)
      throws SandboxLaunchException {
    SandboxPlan plan = request.plan();
    String workdir = plan.spec().guestWorkdir();
    LOG.info("run {}: starting without an OS sandbox: {}", plan.spec().sessionId(),
        plan.backendReason());
    ProcessBuilder pb = new ProcessBuilder(request.command());
    if (workdir != null) {
      pb.directory(new File(workdir));
    }
    pb.environment().clear();
    pb.environment().putAll(plan.env().asMap());
    stdin(pb, request);
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("workdir", workdir);
    details.put("note", "no OS sandbox: " + plan.enforcement().osSandboxNote());
    List<AutoCloseable> cleanup = new ArrayList<>();
    try {
      ApiInterception api = request.apiInterception();
      if (api != null && api.sharedProxy() != null) {
        // Nothing holds a run's network here: the GitHub API goes through the boundary only
        // for the programs that honour HTTPS_PROXY (cooperative, docs/github-api.md). The
        // appliance's shared proxy, in the boundary's process, hands the API connections over
        // to it, with no relay between them.
        ApiInterception.ProxyLogin shared = api.sharedProxy();
        proxyEnvironment(pb.environment(), shared.port(), shared.user(),
            shared.password().reveal());
        details.put("apiProxy", "127.0.0.1:" + shared.port());
      } else if (api != null) {
        EgressProxy proxy = EgressProxy.startLoopback(settings.resolver(), api);
        cleanup.add(proxy);
        proxyEnvironment(pb.environment(), proxy.port(), EgressProxy.LAUNCH_USER,
            proxy.login().reveal());
        details.put("apiProxy", "127.0.0.1:" + proxy.port());
      }
      RunEndCheck endCheck = GitMetadataCheck.snapshot(writableRoots(plan));
      Process p = pb.start();
      return new SandboxProcess(plan.spec().sessionId(), SandboxBackend.NONE, p,
          new SandboxProcess.Events(listener), null, null, cleanup, endCheck, details,
          request.timeout());
    } catch (IOException e) {
      for (AutoCloseable c : cleanup) {
        try {
          c.close();
        } catch (Exception x) {
          e.addSuppressed(x);
        }
      }
      throw new SandboxLaunchException("cannot start " + request.command().get(0) + ": "
          + e.getMessage(), e);
    }
  }

  /** The {@code native} backend on Linux. */
  private SandboxProcess bubblewrap(LaunchRequest request, SandboxListener listener)
      throws SandboxLaunchException {
    SandboxPlan plan = request.plan();
    SandboxSpec spec = plan.spec();
    boolean dropping = currentUid() == 0;
    BubblewrapArgv.Tools tools = tools(dropping);
    ViolationLog violationLog = new ViolationLog(listener);
    SandboxProcess.Events events = new SandboxProcess.Events(violationLog);
    List<AutoCloseable> cleanup = new ArrayList<>();
    try {
      // First in, so last out: the id is let go only after the mounts lent to it are given back.
      SandboxUser user = dropping ? sandboxUser(cleanup) : null;
      Path staging = Files.createTempDirectory(settings.stagingParent(), "pushgate-sandbox-");
      cleanup.add(() -> FileTrees.delete(staging));
      Files.setPosixFilePermissions(staging, PosixFilePermissions.fromString("rwx------"));
      Path empty = Files.createDirectory(staging.resolve("empty"));
      Files.setPosixFilePermissions(empty, PosixFilePermissions.fromString("r-xr-xr-x"));
      Path emptyFile = Files.createFile(staging.resolve("empty-file"));
      Files.setPosixFilePermissions(emptyFile, PosixFilePermissions.fromString("r--r--r--"));

      List<BubblewrapArgv.Staged> staged = new ArrayList<>();
      int n = 0;
      for (SandboxFile f : request.files()) {
        Path copy = staging.resolve("file-" + n++);
        Files.copy(f.hostPath(), copy, StandardCopyOption.REPLACE_EXISTING);
        Files.setPosixFilePermissions(copy,
            PosixFilePermissions.fromString(f.executable() ? "r-x------" : "r--------"));
        staged.add(new BubblewrapArgv.Staged(copy.toString(), f.guestPath()));
      }

      List<Bridge> bridges = new ArrayList<>(request.bridges());
      int proxyPort = PROXY_PORT;
      while (usesPort(bridges, proxyPort)) {
        proxyPort++;
      }
      Path proxySocket = staging.resolve("proxy.sock");
      Map<String, String> env = new LinkedHashMap<>(plan.env().asMap());
      proxyEnvironment(env, proxyPort);
      staged.add(new BubblewrapArgv.Staged(violationLog.create(staging).toString(),
          ViolationLog.GUEST_PATH));
      env.put(ViolationLog.VARIABLE, ViolationLog.GUEST_PATH);
      if (user != null) {
        // The user id of the launch's own has no name on the host: give it one inside.
        SandboxAccount account = SandboxAccount.of(user, env.get("HOME"),
            hostFile("/etc/passwd"), hostFile("/etc/group"));
        staged.add(stage(staging, "passwd", account.passwd(), "/etc/passwd"));
        staged.add(stage(staging, "group", account.group(), "/etc/group"));
        env.put("USER", account.name());
        env.put("LOGNAME", account.name());
      }
      // Every value through a file only the sandbox user can read, none on bwrap's command line.
      StringBuilder exports = new StringBuilder();
      for (Map.Entry<String, String> e : env.entrySet()) {
        if (!SandboxStartScript.exportable(e.getKey())) {
          throw new SandboxLaunchException("the run's environment variable "
              + UntrustedText.printable(e.getKey()) + " has a name the shell cannot set", List.of(
                  "leave it out of the run's environment: names are letters, digits and _"));
        }
        exports.append(SandboxStartScript.exportLine(e.getKey(), e.getValue()));
      }
      if (exports.length() > 0) {
        Path envFile = staging.resolve("env");
        Files.writeString(envFile, exports, StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(envFile, PosixFilePermissions.fromString("r--------"));
        staged.add(new BubblewrapArgv.Staged(envFile.toString(), BubblewrapArgv.GUEST_ENV_FILE));
      }
      if (user != null) {
        try (var files = Files.walk(staging)) {
          for (Path p : files.toList()) {
            OwnershipLoan.chown(p, user.uid(), user.gid());
          }
        }
      }

      EgressProxy proxy = EgressProxy.start(proxySocket, plan.egress(), settings.resolver(),
          events::violation, request.apiInterception());
      cleanup.add(proxy);
      bridges.add(new Bridge(PROXY_BRIDGE, proxySocket, proxyPort));

      List<SandboxBindMount> mounts = BubblewrapArgv.mounts(spec);
      // The appliance refuses such plans; a plan from anywhere else is checked again here, before
      // a writable mount is lent to the sandbox user.
      for (SandboxBindMount m : mounts) {
        String why = m.readOnly() ? null : MountGuard.SYSTEM.problem(m.hostPath());
        if (why != null) {
          throw new SandboxLaunchException("the plan mounts " + UntrustedText.printable(m.hostPath())
              + " writable, which " + why, List.of("give the run a directory of its own"));
        }
      }
      requireNoneOpened(mounts, spec.protectedPaths());
      if (user != null) {
        List<Path> reached = new ArrayList<>();
        for (SandboxBindMount m : mounts) {
          reached.add(Path.of(m.hostPath()));
        }
        for (Bridge b : request.bridges()) {
          reached.add(b.hostSocket());
        }
        for (Path p : reached) {
          String why = OwnershipLoan.unreachable(p, user);
          if (why != null) {
            throw new SandboxLaunchException("the sandbox user (uid " + user.uid()
                + ") cannot reach " + p + ": " + why, List.of(
                    "let others search the directories on the way (chmod o+x), or keep the run's"
                        + " directories under one that does",
                    "run pushgate exec as the user who owns them instead of root"));
          }
        }
        List<Path> writable = new ArrayList<>();
        for (SandboxBindMount m : mounts) {
          if (!m.readOnly()) {
            writable.add(Path.of(m.hostPath()));
          }
        }
        cleanup.add(OwnershipLoan.lend(writable, user,
            new LoanRegister(settings.loanRegister()),
            "run " + spec.sessionId() + " (pid " + ProcessHandle.current().pid() + ")"));
      }

      // After the loan, so that it is closed (unmounted) before the mounts are given back.
      Map<String, String> layered = Map.of();
      List<Long> layerPids = List.of();
      List<String> judgedConfigs = List.of();
      if (NameDenyLayer.needed(plan.filesystem(), spec.protectedPaths())) {
        NameDenyLayer layer = nameDenyLayer(plan, mounts, user, events);
        cleanup.add(layer);
        events.underLayer(layer::reportsRead);
        layered = layer.mountpoints();
        layerPids = layer.daemons().stream().map(ProcessHandle::pid).toList();
        judgedConfigs = layer.judgedConfigs();
      }

      String nonce = HexFormat.of().formatHex(randomBytes());
      BubblewrapArgv.Layout layout = new BubblewrapArgv.Layout(plan, request.command(), bridges,
          staged, exports.length() > 0, env.get("HOME"), empty.toString(), emptyFile.toString(),
          user, tools, nonce, layered, toolchains(env, user), judgedConfigs);
      BubblewrapArgv.Built built = BubblewrapArgv.build(layout, BubblewrapArgv.HostView.REAL);
      cleanup.add(() -> removePlaceholders(built.placeholders()));

      ProcessBuilder pb = new ProcessBuilder(built.argv()).directory(new File("/"));
      pb.environment().clear();
      pb.environment().put("PATH", SAFE_PATH);
      stdin(pb, request);
      Map<String, Object> details = new LinkedHashMap<>();
      details.put("workdir", spec.guestWorkdir());
      details.put("staging", staging.toString());
      details.put("proxy", "127.0.0.1:" + proxyPort);
      details.put("user", user == null ? null : user.toString());
      if (!layerPids.isEmpty()) {
        details.put("nameDenyLayer", layerPids);
      }
      RunEndCheck endCheck = GitMetadataCheck.snapshot(writableRoots(plan));
      Process p = pb.start();
      LOG.info("run {}: launched under bubblewrap{} (pid {})", spec.sessionId(),
          user == null ? "" : " as uid " + user.uid(), p.pid());
      return new SandboxProcess(spec.sessionId(), SandboxBackend.NATIVE, p, events,
          BubblewrapArgv.READY + " " + nonce, built.denials(), cleanup, endCheck, details,
          request.timeout());
    } catch (SandboxLaunchException e) {
      close(cleanup);
      throw e;
    } catch (IOException | RuntimeException e) {
      close(cleanup);
      throw new SandboxLaunchException("the sandbox could not be set up: " + e.getMessage(), e);
    }
  }

  /**
   * The launcher's toolchains under its home that the sandbox shows ({@link HomeToolchains}):
   * those the sandbox user can reach. One it cannot (root's home is mode 0700) is left out and
   * said so, rather than the launch failing on it.
   */
  private static List<String> toolchains(Map<String, String> env, SandboxUser user) {
    List<String> out = new ArrayList<>();
    String home = env.get("HOME");
    for (String t : HomeToolchains.of(home, env.get("PATH"))) {
      String why = HomeToolchains.leadsToASecret(home, Path.of(t));
      if (why == null && user != null) {
        why = OwnershipLoan.unreachable(Path.of(t), user);
        if (why != null) {
          why += "; let others search the directories on the way (chmod o+x) to show it";
        }
      }
      if (why == null) {
        out.add(t);
      } else {
        LOG.warn("{} on PATH is not shown in the sandbox: {}", t, why);
      }
    }
    return out;
  }

  /** A file of the sandbox's own, readable by all inside, bound read-only at {@code guestPath}. */
  private static BubblewrapArgv.Staged stage(Path staging, String name, String text,
      String guestPath) throws IOException {
    Path file = staging.resolve(name);
    Files.writeString(file, text, StandardCharsets.UTF_8);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("r--r--r--"));
    return new BubblewrapArgv.Staged(file.toString(), guestPath);
  }

  /** A host file the sandbox's own copy starts from; empty when the host has none. */
  private static String hostFile(String path) throws IOException {
    Path p = Path.of(path);
    return Files.isRegularFile(p) ? Files.readString(p, StandardCharsets.UTF_8) : "";
  }

  /**
   * Starts the name-deny layer over every writable mount, or refuses the launch with the reason:
   * the plan counted on it (fail closed).
   */
  private NameDenyLayer nameDenyLayer(SandboxPlan plan, List<SandboxBindMount> mounts,
      SandboxUser user, SandboxProcess.Events events) throws SandboxLaunchException {
    NameDenyLayer.Availability available =
        NameDenyLayer.Availability.probe(settings.searchPath());
    if (!available.available()) {
      throw NameDenyLayer.refused(available.reason());
    }
    List<String> roots = new ArrayList<>();
    Map<String, String> guestOf = new LinkedHashMap<>();
    for (SandboxBindMount m : mounts) {
      if (!m.readOnly() && !roots.contains(m.hostPath())) {
        roots.add(m.hostPath());
        guestOf.put(m.hostPath(), m.guestPath());
      }
    }
    List<String> denyPaths = new ArrayList<>(NameDenyLayer.patterns(plan.spec().protectedPaths()));
    denyPaths.addAll(NameDenyLayer.literalDenyPaths(plan.filesystem().writeDeny()));
    denyPaths.addAll(NameDenyLayer.gitDenyPaths(roots, BubblewrapArgv.HostView.REAL));
    return NameDenyLayer.start(available.helper(), settings.stagingParent(), roots, guestOf,
        plan.filesystem().writeDenyGlobs(), denyPaths,
        NameDenyLayer.judgedConfigs(roots, BubblewrapArgv.HostView.REAL), user,
        events::violation);
  }

  /** The operator's sandbox user, or a user id of this launch's own, held until it ends. */
  private SandboxUser sandboxUser(List<AutoCloseable> cleanup) throws SandboxLaunchException {
    if (settings.sandboxUser() != null) {
      return settings.sandboxUser();
    }
    try {
      OwnSandboxUsers.Lease lease = settings.ownUsers().lease();
      cleanup.add(lease);
      return lease.user();
    } catch (IOException e) {
      throw new SandboxLaunchException("no user id of its own for the sandbox: " + e.getMessage(),
          List.of("name a sandbox user with --sandbox-user UID[:GID]; every launch that names it"
              + " shares it"));
    }
  }

  /**
   * A plan from anywhere but the appliance's planner is checked here too, on the paths as they
   * are now: no writable mount may open a read-only one or a protected path through another
   * spelling of the same directory ({@link MountOverlaps}).
   */
  private static void requireNoneOpened(List<SandboxBindMount> mounts,
      List<String> protectedPaths) throws SandboxLaunchException {
    List<MountOverlaps.Mount> readOnly = new ArrayList<>();
    for (SandboxBindMount m : mounts) {
      if (m.readOnly()) {
        readOnly.add(new MountOverlaps.Mount("mount", m.hostPath(),
            MountOverlaps.Kind.READ_ONLY));
      }
    }
    for (String p : protectedPaths) {
      if (!RunPaths.isGlob(p)) {
        readOnly.add(new MountOverlaps.Mount("protected path", p, MountOverlaps.Kind.PROTECTED));
      }
    }
    var places = MountOverlaps.placesOnce();
    for (SandboxBindMount w : mounts) {
      for (MountOverlaps.Mount r : w.readOnly() ? List.<MountOverlaps.Mount>of() : readOnly) {
        String why = MountOverlaps.problem(w.hostPath(), r, false, places);
        if (why != null) {
          throw new SandboxLaunchException("the plan mounts "
              + UntrustedText.printable(w.hostPath()) + " writable, and it " + why,
              List.of("give the run's writable directories paths that neither are nor contain"
                  + " its read-only ones, as the kernel resolves them"));
        }
      }
    }
  }

  private static List<Path> writableRoots(SandboxPlan plan) {
    List<Path> roots = new ArrayList<>();
    for (String r : plan.filesystem().writableRoots()) {
      roots.add(Path.of(r));
    }
    return roots;
  }

  /** The proxy variables: every HTTP client that honours them goes through the run's proxy. */
  public static void proxyEnvironment(Map<String, String> env, int proxyPort) {
    proxyEnvironment(env, "http://127.0.0.1:" + proxyPort);
  }

  /**
   * As {@link #proxyEnvironment(Map, int)}, for the shared proxy of the runs used by hand, which
   * tells them apart by the login in the URL ({@link ProxyLogins}).
   */
  public static void proxyEnvironment(Map<String, String> env, int proxyPort, String user,
      String password) {
    proxyEnvironment(env, "http://" + user + ":" + password + "@127.0.0.1:" + proxyPort);
  }

  private static void proxyEnvironment(Map<String, String> env, String proxy) {
    for (String name : List.of("ALL_PROXY", "all_proxy", "FTP_PROXY", "ftp_proxy")) {
      env.remove(name);
    }
    env.put("HTTP_PROXY", proxy);
    env.put("HTTPS_PROXY", proxy);
    env.put("http_proxy", proxy);
    env.put("https_proxy", proxy);
    env.put("NO_PROXY", "127.0.0.1,localhost");
    env.put("no_proxy", "127.0.0.1,localhost");
    // Node 24+ sends fetch and https through these only when told (docs/github-api.md says
    // what older Node needs); the same for every launch, so no Node client goes direct.
    env.put("NODE_USE_ENV_PROXY", "1");
  }

  private static byte[] randomBytes() {
    byte[] b = new byte[12];
    RANDOM.nextBytes(b);
    return b;
  }

  private BubblewrapArgv.Tools tools(boolean dropping) throws SandboxLaunchException {
    String bwrap = find("bwrap");
    String socat = find("socat");
    String setpriv = dropping ? find("setpriv") : null;
    String sleep = find("sleep");
    List<String> missing = new ArrayList<>();
    if (bwrap == null) {
      missing.add("bubblewrap");
    }
    if (socat == null) {
      missing.add("socat");
    }
    if (dropping && setpriv == null) {
      missing.add("util-linux (setpriv)");
    }
    if (sleep == null) {
      missing.add("coreutils (sleep)");
    }
    if (!missing.isEmpty()) {
      throw new SandboxLaunchException("this host lacks what the native sandbox needs: "
          + String.join(", ", missing), List.of(
              "install them: sudo apt-get install " + String.join(" ", missing).replaceAll(
                  " \\([a-z]+\\)", ""),
              WaysOut.SANDBOX_OFF));
    }
    return new BubblewrapArgv.Tools(setpriv, bwrap, "/bin/sh", socat, sleep);
  }

  private String find(String name) {
    return Executables.locate(settings.searchPath(), name);
  }

  private static boolean usesPort(List<Bridge> bridges, int port) {
    return bridges.stream().anyMatch(b -> b.guestPort() == port);
  }

  private static void stdin(ProcessBuilder pb, LaunchRequest request) {
    pb.redirectInput(request.inheritStdin()
        ? ProcessBuilder.Redirect.INHERIT : ProcessBuilder.Redirect.from(new File("/dev/null")));
  }

  /** The effective uid of this process, or -1 when it cannot be told (then never root). */
  static int currentUid() {
    try {
      return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /** Removes the empty directories and files bwrap made on the host as mount points for denies. */
  private static void removePlaceholders(List<String> placeholders) {
    for (String p : placeholders) {
      Path path = Path.of(p);
      try {
        if (Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)) {
          if (Files.size(path) == 0) {
            Files.delete(path);
          }
        } else if (Files.isDirectory(path) && !Files.isSymbolicLink(path)) {
          try (var entries = Files.list(path)) {
            if (entries.findAny().isPresent()) {
              continue;
            }
          }
          Files.delete(path);
        }
      } catch (IOException e) {
        LOG.warn("cannot remove the mount point {}: {}", p, e.getMessage());
      }
    }
  }


  private static void close(List<AutoCloseable> cleanup) {
    for (int i = cleanup.size() - 1; i >= 0; i--) {
      try {
        cleanup.get(i).close();
      } catch (Exception e) {
        LOG.warn("cleanup after a failed launch: {}", e.getMessage());
      }
    }
  }
}
