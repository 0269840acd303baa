package dev.pushgate.sandbox;

import dev.pushgate.types.UntrustedText;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The name-deny layer on Linux: one {@code pushgate-denyfs} FUSE daemon per writable mount, run
 * outside the sandbox, mounted over a directory of its own that bubblewrap then binds in the
 * mount's place. It refuses every write to a name the deny globs or a protected-path pattern
 * match, anywhere in the tree, and reports each refusal, which bubblewrap alone cannot (it covers
 * paths that exist, never a name yet to be created). See docs/sandbox.md.
 *
 * <p>The daemons live as long as this object: {@link #close()} ends them and checks that no mount
 * is left. Each one also ends when its standard input does (this process died), and its mount is
 * unmounted by fusermount3's {@code auto_unmount} when it dies, even by SIGKILL.
 */
public final class NameDenyLayer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(NameDenyLayer.class);

  /**
   * The helper's name: at {@code -Dpushgate.denyfs} (set empty: none), else beside the jar
   * ({@link Availability#besideTheJar}), else on the search path.
   */
  static final String HELPER = "pushgate-denyfs";

  static final String INSTALL =
      "install fuse3 (fusermount3) and put pushgate-denyfs on the PATH (built from"
          + " sandbox-bridge/src/main/c with gcc and libfuse3-dev)";

  private static final long READY_SECONDS = 10;
  private static final Pattern REFUSAL = Pattern.compile("file-write\\* (/.*)");

  /**
   * Whether this host can run the layer.
   *
   * @param helper the helper's path when available, else null
   * @param reason why it is not available, else null
   */
  public record Availability(String helper, String reason) {
    public static final Availability NOT_PROBED =
        new Availability(null, "the name-deny layer was not probed on this host");

    public boolean available() {
      return helper != null;
    }

    /** Why a refusal names the layer: null when the host was not probed for it. */
    String missing() {
      return available() || this.equals(NOT_PROBED) ? null : reason;
    }

    /** This host: the helper, {@code /dev/fuse} and {@code fusermount3} (for auto_unmount). */
    static Availability probe(String searchPath) {
      String helper = System.getProperty("pushgate.denyfs");
      if (helper == null) {
        helper = besideTheJar(jarOf(NameDenyLayer.class));
        if (helper == null) {
          helper = Executables.locate(searchPath, HELPER);
        }
      } else if (helper.isBlank()) {
        helper = null; // -Dpushgate.denyfs= : none, as on a host without it
      }
      List<String> missing = new ArrayList<>();
      if (helper == null || !Files.isExecutable(Path.of(helper))) {
        missing.add(HELPER);
        helper = null;
      }
      if (Executables.locate(searchPath, "fusermount3") == null) {
        missing.add("fusermount3 (Debian: fuse3)");
      }
      Path dev = Path.of("/dev/fuse");
      if (!Files.isReadable(dev) || !Files.isWritable(dev)) {
        missing.add("/dev/fuse");
      }
      if (!missing.isEmpty()) {
        return new Availability(null, "this host lacks " + String.join(", ", missing));
      }
      return new Availability(helper, null);
    }

    /**
     * The helper where the jar's own launchers pass it ({@code bin/pushgate} of the release
     * archive: {@code libexec/} beside {@code lib/pushgate.jar}; {@code ./pushgate} of the source
     * tree: sandbox-bridge's build beside {@code appliance/target/pushgate.jar}), so that
     * {@code java -jar pushgate.jar} finds the same helper as the appliance it talks to; null
     * when neither is there.
     */
    static String besideTheJar(Path jar) {
      if (jar == null || jar.getParent() == null || jar.getParent().getParent() == null) {
        return null;
      }
      Path home = jar.getParent().getParent();
      List<Path> candidates = new ArrayList<>(List.of(home.resolve("libexec").resolve(HELPER)));
      if (home.getParent() != null) {
        candidates.add(home.getParent().resolve("sandbox-bridge/target/native").resolve(HELPER));
      }
      for (Path candidate : candidates) {
        if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
          return candidate.toAbsolutePath().toString();
        }
      }
      return null;
    }

    /** The jar {@code type} was loaded from; null when it was not loaded from a jar file. */
    static Path jarOf(Class<?> type) {
      try {
        java.security.CodeSource source = type.getProtectionDomain().getCodeSource();
        if (source == null) {
          return null;
        }
        Path path = Path.of(source.getLocation().toURI());
        return Files.isRegularFile(path) && path.toString().endsWith(".jar") ? path : null;
      } catch (java.net.URISyntaxException | RuntimeException e) {
        return null;
      }
    }

    public static Availability probe() {
      return probe(System.getenv().getOrDefault("PATH", "") + File.pathSeparator
          + "/usr/local/bin:/usr/bin:/bin:/usr/lib/pushgate");
    }
  }

  /**
   * Whether a launch of this plan needs the layer: name-based denies (the globs, or a protected
   * path written as a pattern that may match inside one) and a writable mount.
   */
  static boolean needed(FilesystemPolicy fs, List<String> protectedPaths) {
    if (fs.writableRoots().isEmpty()) {
      return false;
    }
    return !fs.writeDenyGlobs().isEmpty()
        || SandboxPlanner.protectedGlobRefusal(protectedPaths, fs.writableRoots()) != null;
  }

  /**
   * The protected paths written as patterns, each as written and with its literal directories
   * resolved ({@link DenySpellings}): the layer denies writes to what they match.
   */
  static List<String> patterns(List<String> protectedPaths) {
    return DenySpellings.ofAll(protectedPaths.stream().filter(RunPaths::isGlob).toList());
  }

  /**
   * Whether the layer, where it runs, refuses writing this literal deny path (a protected path,
   * an agent's or editor's settings, a shell start-up file) by its name, so that bubblewrap need
   * not leave an empty read-only directory where it does not exist: such a placeholder reads as
   * a file that is broken ({@code cat .mcp.json}: {@code Is a directory}). Inside a {@code .git}
   * bubblewrap still blocks them: the run-end check reads those, and git skips what it finds
   * there empty.
   */
  static boolean refusesInPlace(String path) {
    return !RunPaths.isGlob(path) && !path.contains("/.git/") && !path.endsWith("/.git");
  }

  /** The literal deny paths the layer refuses ({@link #refusesInPlace}). */
  static List<String> literalDenyPaths(List<String> writeDeny) {
    return writeDeny.stream().filter(NameDenyLayer::refusesInPlace).toList();
  }

  /**
   * The daemon's {@code --deny-path} patterns for the mount at {@code spellings}: every pattern,
   * and each literal path inside the mount, written as a pattern of itself. A {@code [} is the
   * one character the daemon's fnmatch reads as more than itself that the planner ({@link
   * PathGlob}) reads as itself (fnmatch reads no escapes), so in both it becomes the bracket
   * expression {@code [[]}.
   */
  static List<String> denyPathsFor(List<String> spellings, List<String> protectedPaths) {
    List<String> out = new ArrayList<>();
    for (String p : protectedPaths) {
      if (RunPaths.isGlob(p)) {
        out.add(p.replace("[", "[[]"));
      } else if (spellings.stream().anyMatch(r -> p.startsWith(r.endsWith("/") ? r : r + "/"))) {
        out.add(p.replace("[", "[[]"));
      }
    }
    return out;
  }

  /**
   * The repository configs under {@code roots} the layer writes only on the launcher's judgement
   * ({@link RepositoryConfigQuestions}), which bubblewrap therefore leaves unbound: each {@code
   * config} that is a regular file in a {@code .git} bubblewrap would protect ({@link
   * BubblewrapArgv#gitDirectories}). One that does not exist keeps its read-only placeholder.
   */
  static List<String> judgedConfigs(List<String> roots, BubblewrapArgv.HostView host) {
    List<String> out = new ArrayList<>();
    for (String g : WritableGitMetadata.gitDirectories(roots, host)) {
      String config = g + "/config";
      if (host.kind(config) == BubblewrapArgv.Kind.FILE) {
        out.add(config);
      }
    }
    return out;
  }

  /**
   * The names the layer refuses in each git directory bubblewrap guards under {@code roots}
   * ({@link GitMetadata#REFUSED_BY_NAME}: a {@code commondir}, which no placeholder can block),
   * host paths.
   */
  static List<String> gitDenyPaths(List<String> roots, BubblewrapArgv.HostView host) {
    return GitMetadata.refusedByNameIn(WritableGitMetadata.gitDirectories(roots, host));
  }

  /**
   * One layered mount: its host directory, where the layer shows it, its daemon, and the barrier
   * on the daemon's refusals.
   */
  private record Layered(String hostRoot, Path mountpoint, Process daemon, ReportBarrier reports) {}

  private final Path dir;
  private final List<Layered> layered = new ArrayList<>();
  /** The judged repository configs, as the sandbox sees them. */
  private final List<String> judged = new ArrayList<>();

  private NameDenyLayer(Path dir) {
    this.dir = dir;
  }

  /**
   * Starts a daemon over each of {@code roots} and waits until each is mounted.
   *
   * @param parent where the layer's directory is made (not the launch's staging directory: that
   *     one is deleted recursively, and must never be walked while a mount is on it)
   * @param guestOf the path inside the sandbox of each host root, for the violation events
   * @param protectedPaths the protected paths written as patterns, and the literal deny paths
   *     the layer refuses in place of bubblewrap's placeholders ({@link #literalDenyPaths}) or
   *     where no placeholder can block them ({@link #gitDenyPaths})
   * @param configs the repository configs the layer writes only as the launcher judges ({@link
   *     #judgedConfigs}), host paths
   * @param user the sandbox's user when this process is root (the daemons then let every user in),
   *     or null: the daemons then run as this process's user and admit only it
   * @throws SandboxLaunchException with the reason when any daemon cannot start: the launch is
   *     refused, never run without the layer
   */
  static NameDenyLayer start(
      String helper,
      Path parent,
      List<String> roots,
      Map<String, String> guestOf,
      List<String> globs,
      List<String> protectedPaths,
      List<String> configs,
      SandboxUser user,
      Consumer<SandboxViolation> onViolation)
      throws SandboxLaunchException {
    NameDenyLayer layer;
    try {
      Path dir = Files.createTempDirectory(parent, "pushgate-denyfs-");
      // Only the sandbox's user passes through to the mount points (bwrap runs as it). As root the
      // daemons let every user in (allow_other), and the kernel's caches of names and listings
      // are shared by all who come: another host user let in would be shown, and could read, a
      // private directory the run's user had looked into, past the permissions underneath.
      if (user != null) {
        Files.setAttribute(dir, "unix:gid", user.gid());
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x---"));
      } else {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
      }
      layer = new NameDenyLayer(dir);
    } catch (IOException e) {
      throw refused("cannot make its directory: " + e.getMessage());
    }
    try {
      int n = 0;
      for (String root : roots) {
        Path mountpoint = Files.createDirectory(layer.dir.resolve("m" + n++));
        List<String> argv = new ArrayList<>(List.of(helper, "--source", root,
            "--mountpoint", mountpoint.toString()));
        for (String g : globs) {
          argv.addAll(List.of("--deny", g));
        }
        for (String d : DenyWriteGlobs.DEPENDENCY_TREES) {
          argv.addAll(List.of("--dependency-dir", d));
        }
        List<String> spellings = DenySpellings.of(root);
        List<String> mine = denyPathsFor(spellings, protectedPaths);
        if (!mine.isEmpty()) {
          for (String p : mine) {
            argv.addAll(List.of("--deny-path", p));
          }
          for (String spelling : spellings) {
            argv.addAll(List.of("--host-path", spelling));
          }
        }
        String guest = guestOf.getOrDefault(root, root);
        for (String c : configs) {
          if (BubblewrapArgv.under(c, root) && !c.equals(root)) {
            String rel = root.equals("/") ? c : c.substring(root.length());
            argv.addAll(List.of("--judged-config", rel));
            layer.judged.add(guest.equals("/") ? rel : guest + rel);
          }
        }
        ProcessBuilder pb = new ProcessBuilder(argv).directory(new File("/"));
        pb.environment().clear();
        pb.environment().put("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
        Process p = pb.start();
        ReportBarrier reports = new ReportBarrier(line -> answer(p, line));
        layer.layered.add(new Layered(root, mountpoint, p, reports));
        awaitReady(p, root, guest, reports, onViolation);
      }
      return layer;
    } catch (IOException | RuntimeException e) {
      layer.close();
      throw refused(e.getMessage());
    } catch (SandboxLaunchException e) {
      layer.close();
      throw e;
    }
  }

  private static void awaitReady(Process p, String root, String guest, ReportBarrier reports,
      Consumer<SandboxViolation> onViolation) throws SandboxLaunchException {
    BufferedReader out = new BufferedReader(
        new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    CompletableFuture<String> first = new CompletableFuture<>();
    Thread reader = new Thread(() -> {
      try {
        first.complete(out.readLine());
        String line;
        while ((line = out.readLine()) != null) {
          var m = REFUSAL.matcher(line);
          if (RepositoryConfigQuestions.isQuestion(line)) {
            answer(p, RepositoryConfigQuestions.answer(line, guest, onViolation));
          } else if (m.matches()) {
            String rel = m.group(1);
            String target = rel.equals("/") ? guest : guest + rel;
            onViolation.accept(new SandboxViolation("file-write*", target,
                "denied by the name-deny layer: " + target));
          } else if (line.equals("transport io_uring")) {
            LOG.debug("the name-deny layer for {} serves requests over io_uring", root);
          } else {
            reports.read(line);
          }
        }
      } catch (IOException e) {
        first.complete(null);
      } finally {
        reports.ended();
      }
    }, "pushgate-denyfs " + root);
    reader.setDaemon(true);
    reader.start();
    String line;
    try {
      line = first.get(READY_SECONDS, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      throw refused("its daemon for " + UntrustedText.printable(root) + " did not mount within "
          + READY_SECONDS + " s");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw refused("interrupted while it started");
    } catch (ExecutionException e) {
      throw refused(e.getCause().getMessage());
    }
    if (!"ready".equals(line)) {
      String err = "";
      try {
        if (p.waitFor(2, TimeUnit.SECONDS)) {
          err = new String(p.getErrorStream().readNBytes(4096), StandardCharsets.UTF_8).strip();
        }
      } catch (IOException e) {
        err = e.getMessage();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      throw refused("its daemon for " + UntrustedText.printable(root) + " did not start"
          + (err.isEmpty() ? "" : ": " + UntrustedText.printable(err)));
    }
  }

  /** Writes an answer to the daemon's standard input; one it cannot take is a refusal there. */
  private static void answer(Process daemon, String answer) {
    if (answer == null) {
      return;
    }
    synchronized (daemon) {
      try {
        OutputStream in = daemon.getOutputStream();
        in.write(answer.getBytes(StandardCharsets.US_ASCII));
        in.flush();
      } catch (IOException e) {
        // The daemon has gone, or is going: without the answer it refuses.
      }
    }
  }

  static SandboxLaunchException refused(String why) {
    return new SandboxLaunchException(
        "the name-deny layer (denyWriteGlobs and protected-path patterns on Linux) could not start: "
            + why,
        List.of(INSTALL,
            WaysOut.DROP_DENY_WRITE_GLOBS,
            WaysOut.SANDBOX_OFF));
  }

  /** Where the layer shows each host root; bwrap binds these in the roots' place. */
  Map<String, String> mountpoints() {
    Map<String, String> out = new LinkedHashMap<>();
    for (Layered l : layered) {
      out.put(l.hostRoot(), l.mountpoint().toString());
    }
    return out;
  }

  /** The repository configs the layer judges, as the sandbox sees them: bubblewrap binds none. */
  List<String> judgedConfigs() {
    return List.copyOf(judged);
  }

  /**
   * Completes once every refusal each daemon reported before now has been delivered to the
   * launch's events: a command's error line read before this call is then known to be, or not to
   * be, a refusal of the layer's.
   */
  CompletableFuture<Void> reportsRead() {
    return CompletableFuture.allOf(
        layered.stream().map(l -> l.reports().passed()).toArray(CompletableFuture[]::new));
  }

  /** The daemons' processes (tests check that they end with the run). */
  List<ProcessHandle> daemons() {
    return layered.stream().map(l -> l.daemon().toHandle()).toList();
  }

  /**
   * Ends every daemon (closing its standard input unmounts it), then removes the empty mount
   * points. A mount point still mounted is left in place and logged, never walked into.
   */
  @Override
  public void close() {
    for (Layered l : layered) {
      synchronized (l.daemon()) {
        try {
          OutputStream in = l.daemon().getOutputStream();
          in.close();
        } catch (IOException e) {
          // Already gone.
        }
      }
    }
    for (Layered l : layered) {
      Process p = l.daemon();
      try {
        if (!p.waitFor(5, TimeUnit.SECONDS)) {
          p.destroy();
          if (!p.waitFor(5, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            p.waitFor(5, TimeUnit.SECONDS);
          }
        }
      } catch (InterruptedException e) {
        p.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
    boolean clean = true;
    for (Layered l : layered) {
      if (!awaitUnmounted(l.mountpoint())) {
        lazyUnmount(l.mountpoint());
      }
      if (!awaitUnmounted(l.mountpoint())) {
        LOG.warn("the name-deny layer's mount {} is still mounted; left in place",
            l.mountpoint());
        clean = false;
        continue;
      }
      try {
        Files.deleteIfExists(l.mountpoint());
      } catch (IOException e) {
        LOG.warn("cannot remove the mount point {}: {}", l.mountpoint(), e.getMessage());
        clean = false;
      }
    }
    if (clean) {
      try {
        Files.deleteIfExists(dir);
      } catch (IOException e) {
        LOG.warn("cannot remove {}: {}", dir, e.getMessage());
      }
    }
  }

  /**
   * A daemon that was killed leaves its mount to fusermount3's auto_unmount, which was seen not to
   * act when the daemon ran as a user other than root: then unmount it here (lazily: nothing in it
   * can be reached any more anyway).
   */
  private static void lazyUnmount(Path mountpoint) {
    try {
      Process p = new ProcessBuilder("fusermount3", "-u", "-z", mountpoint.toString())
          .redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      p.waitFor(10, TimeUnit.SECONDS);
    } catch (IOException e) {
      LOG.warn("cannot run fusermount3 -u on {}: {}", mountpoint, e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** fusermount3 unmounts when the daemon has gone; that may take a moment after it exits. */
  private static boolean awaitUnmounted(Path mountpoint) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (isMountPoint(mountpoint)) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return !isMountPoint(mountpoint);
      }
    }
    return true;
  }

  /** Whether a mount is on {@code path}, by /proc/self/mountinfo (octal escapes as the kernel). */
  static boolean isMountPoint(Path path) {
    String want = path.toString().replace("\\", "\\134").replace(" ", "\\040")
        .replace("\t", "\\011").replace("\n", "\\012");
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
        String[] f = line.split(" ");
        if (f.length > 4 && f[4].equals(want)) {
          return true;
        }
      }
      return false;
    } catch (IOException e) {
      return true; // Cannot tell: treat as mounted, so nothing walks into it.
    }
  }
}
