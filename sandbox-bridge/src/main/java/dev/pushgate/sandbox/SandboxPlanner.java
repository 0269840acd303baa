package dev.pushgate.sandbox;

import dev.pushgate.policy.Mode;
import dev.pushgate.types.UntrustedText;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plans one run's sandbox from the host's facts (probed once at start) and the run's request: the
 * spec, the effective backend, whether it may launch, the environment, the file-system and egress
 * rules, and an honest summary of what holds.
 */
public final class SandboxPlanner {
  private static final Logger LOG = LoggerFactory.getLogger(SandboxPlanner.class);

  /** Under the home directory: never readable from a run. */
  static final List<String> SECRET_READ_DENY =
      List.of(
          ".ssh", ".aws", ".gnupg", ".config/gh", "Library/Keychains",
          ".netrc", ".git-credentials", ".kube", ".docker", ".config/gcloud", ".pypirc",
          ".cargo/credentials", ".cargo/credentials.toml");

  /** Under every writable root: files that would run code or change policy outside the run. */
  static final List<String> MANDATORY_WRITE_DENY = mandatoryWriteDeny();

  private static List<String> mandatoryWriteDeny() {
    List<String> out = new ArrayList<>(List.of(
        ".bashrc", ".bash_profile", ".bash_login", ".profile",
        ".zshrc", ".zshenv", ".zprofile", ".zlogin",
        ".gitconfig", ".vscode", ".idea"));
    out.addAll(GitMetadata.deniedUnderWorktree());
    out.addAll(List.of(
        ".claude/settings.json", ".claude/settings.local.json", ".claude/skills",
        ".claude/agents", ".claude/commands", ".claude/hooks", ".claude/workflows",
        ".claude/scheduled_tasks.json", ".mcp.json"));
    return List.copyOf(out);
  }

  /** Directly under a runner state dir, which is itself the runner's config dir. */
  static final List<String> RUNNER_STATE_WRITE_DENY =
      List.of("settings.json", "settings.local.json", "hooks");

  /** What the enforcement summary says of the name-deny layer when a run launches under it. */
  static final String NAME_DENY_NOTE =
      "name-based write denies (denyWriteGlobs, protected-path patterns) enforced by the"
          + " pushgate-denyfs FUSE layer over each writable mount";

  private final ProbeResult probe;
  private final SandboxSwitch sandboxSwitch;
  private final boolean microVmAvailable;
  private final Path home;
  private final EnvironmentVariables hostEnv;
  private final EgressLists egressLists;
  private final PassedVariables passedVariables;
  private final NameDenyLayer.Availability denyLayer;
  /** Why this host cannot boot a microVM, from its probe; null when it can or was not probed. */
  private final String microVmWhyNot;

  /**
   * @param probe the start-up probe's result
   * @param sandboxSwitch {@code --sandbox} / {@code CC_SERVER_SANDBOX}
   * @param microVmAvailable whether this host has a microVM runtime
   * @param home the user's home directory (for the secret read denies), or null when there is none
   * @param hostEnv the appliance's environment, the base of every run's
   * @param egressLists the baseline, GitHub and deny lists
   * @param passedVariables the launcher variables the operator lets through beyond the basics
   */
  public SandboxPlanner(
      ProbeResult probe,
      SandboxSwitch sandboxSwitch,
      boolean microVmAvailable,
      Path home,
      EnvironmentVariables hostEnv,
      EgressLists egressLists,
      PassedVariables passedVariables) {
    if (probe == null || sandboxSwitch == null || hostEnv == null || egressLists == null
        || passedVariables == null) {
      throw new IllegalArgumentException("a sandbox planner needs the probe, switch, env and lists");
    }
    if (home != null && !home.isAbsolute()) {
      throw new IllegalArgumentException("home must be an absolute path: " + home);
    }
    this.probe = probe;
    this.sandboxSwitch = sandboxSwitch;
    this.microVmAvailable = microVmAvailable;
    this.home = home;
    this.hostEnv = hostEnv;
    this.egressLists = egressLists;
    this.passedVariables = passedVariables;
    this.denyLayer = NameDenyLayer.Availability.NOT_PROBED;
    this.microVmWhyNot = null;
  }

  private SandboxPlanner(SandboxPlanner p, NameDenyLayer.Availability denyLayer) {
    this(p, denyLayer, p.microVmAvailable, p.microVmWhyNot);
  }

  private SandboxPlanner(SandboxPlanner p, NameDenyLayer.Availability denyLayer,
      boolean microVmAvailable, String microVmWhyNot) {
    this.microVmWhyNot = microVmWhyNot;
    this.probe = p.probe;
    this.sandboxSwitch = p.sandboxSwitch;
    this.microVmAvailable = microVmAvailable;
    this.home = p.home;
    this.hostEnv = p.hostEnv;
    this.egressLists = p.egressLists;
    this.passedVariables = p.passedVariables;
    this.denyLayer = denyLayer;
  }

  /**
   * This planner, knowing whether the host can run the name-deny layer ({@link NameDenyLayer}):
   * without it, a plan that needs name-based write denies inside a writable mount on Linux is
   * refused.
   */
  public SandboxPlanner withNameDenyLayer(NameDenyLayer.Availability availability) {
    if (availability == null) {
      throw new IllegalArgumentException("say whether the name-deny layer is available");
    }
    return new SandboxPlanner(this, availability);
  }

  /**
   * This planner, knowing what the microvm probe found: an explicit {@code microvm} request on a
   * host that cannot boot one is refused with the probe's reason.
   */
  public SandboxPlanner withMicroVm(MicroVmStatus status) {
    if (status == null) {
      throw new IllegalArgumentException("say what the microvm probe found");
    }
    return new SandboxPlanner(this, denyLayer, status.available(),
        status.available() ? null : status.detail());
  }

  /**
   * Plans a run.
   *
   * @throws SandboxRequestException naming the field when the request cannot be planned (400)
   */
  public SandboxPlan plan(SandboxRequest request) {
    return plan(request, null);
  }

  /**
   * As {@link #plan(SandboxRequest)}, refused for {@code refusal} (found outside the sandbox, such
   * as a push URL of the workdir that cannot be sent to the gateway) when it is not null.
   */
  public SandboxPlan plan(SandboxRequest request, Verdict refusal) {
    Optional<SandboxBackend> requested;
    try {
      requested = SandboxBackend.parseRequested(request.requestedBackend());
    } catch (IllegalArgumentException e) {
      throw new SandboxRequestException("requestedBackend", e.getMessage());
    }
    Mode mode = request.mode();
    RunPaths paths = request.paths();
    List<MountOverlaps.Mount> named = new ArrayList<>();
    List<SandboxBindMount> mounts = mounts(request.runner().dispatch(), mode, paths, named);
    requireNoneOpened(named, paths);

    EgressPolicy egress;
    try {
      egress = EgressPolicy.resolve(egressLists, request.networkEnabled(), request.egressAllowlist());
    } catch (IllegalArgumentException e) {
      throw new SandboxRequestException("egressAllowlist", e.getMessage());
    }

    SandboxSpec spec =
        new SandboxSpec(
            request.sessionId(), request.workspaceId(), request.agentId(), mounts,
            request.networkEnabled(), request.egressAllowlist(), paths.workdir(), mode,
            paths.protectedPaths(), paths.runnerStateDirs(), paths.execGrantRoots());
    FilesystemPolicy filesystem = filesystem(mounts, paths, request.denyWriteGlobs());

    Selection selection = select(requested, request.sessionId());
    Verdict verdict = refusal != null ? refusal : selection.refusal;
    // bubblewrap covers paths that exist; a name to be created is denied by the name-deny layer,
    // and without it such a plan is refused.
    boolean layered = false;
    if (verdict == null
        && selection.backend == SandboxBackend.NATIVE
        && probe.platform().linuxLike()) {
      Verdict needs = !filesystem.writeDenyGlobs().isEmpty() && !filesystem.writableRoots().isEmpty()
          ? globRefusal(filesystem.writeDenyGlobs().get(0), denyLayer.missing())
          : protectedGlobRefusal(paths.protectedPaths(), filesystem.writableRoots(),
              denyLayer.missing());
      if (needs != null && denyLayer.available()) {
        layered = true;
      } else {
        verdict = needs;
      }
    }
    if (verdict == null) {
      verdict = Verdict.allowed();
    }
    SandboxBackend effective = verdict.launches() ? selection.backend : SandboxBackend.NONE;
    String backendReason = verdict.launches() ? selection.reason : "not launched: " + verdict.reason();
    if (!verdict.launches()) {
      LOG.warn("run {}: sandbox refused: {}", request.sessionId(), verdict.reason());
    }

    boolean inherit = request.runner() == Runner.CLAUDE_CODE && !effective.wraps();
    EnvironmentVariables env =
        inherit
            ? EnvironmentSanitiser.inherit(hostEnv, request.envAdditions())
            : EnvironmentSanitiser.sanitise(hostEnv, request.envAdditions(), passedVariables);

    Enforcement enforcement =
        enforcement(effective, verdict, backendReason, egress, request, filesystem, inherit,
            layered && verdict.launches());
    return new SandboxPlan(
        spec, requested.orElse(null), effective, backendReason, verdict, probe.summary(), env,
        enforcement, filesystem, egress);
  }

  private static final class Selection {
    final SandboxBackend backend;
    final String reason;
    final Verdict refusal;

    Selection(SandboxBackend backend, String reason, Verdict refusal) {
      this.backend = backend;
      this.reason = reason;
      this.refusal = refusal;
    }
  }

  private Selection select(Optional<SandboxBackend> requested, String sessionId) {
    if (requested.isEmpty()) {
      if (sandboxSwitch == SandboxSwitch.OFF) {
        return new Selection(SandboxBackend.NONE, SandboxSwitch.DISABLED, null);
      }
      if (probe.available()) {
        LOG.info(
            "run {}: sandbox backend not specified, falling back to native ({})",
            sessionId, probe.tool());
        return new Selection(
            SandboxBackend.NATIVE, "backend not specified: native (" + probe.tool() + ")", null);
      }
      return new Selection(
          SandboxBackend.NONE, "no OS-native agent sandbox on this host: " + probe.hint(), null);
    }
    SandboxBackend asked = requested.get();
    if (asked == SandboxBackend.NONE) {
      return new Selection(SandboxBackend.NONE, "backend none requested", null);
    }
    String unspecified = "leave the backend unspecified to wrap the run when the host offers a sandbox";
    if (sandboxSwitch == SandboxSwitch.OFF) {
      return refusedSelection(
          asked.id() + " sandbox requested, but " + SandboxSwitch.DISABLED,
          List.of("start pushgate with --sandbox on", unspecified));
    }
    if (asked == SandboxBackend.MICROVM) {
      if (!microVmAvailable) {
        return refusedSelection(
            microVmWhyNot == null
                ? "microvm sandbox requested, but this host has no microVM runtime"
                : "microvm sandbox requested, but the microvm backend is unavailable: "
                    + microVmWhyNot,
            List.of("request native (namespace-level isolation, no kernel boundary)", unspecified));
      }
      return new Selection(SandboxBackend.MICROVM, "microvm requested", null);
    }
    if (!probe.available()) {
      List<String> ways = new ArrayList<>();
      if (probe.requiresInstall()) {
        ways.add("install the missing packages: " + probe.hint());
      }
      ways.add(unspecified);
      return refusedSelection(
          "native sandbox requested, but there is no OS-native agent sandbox on this host: "
              + probe.hint(),
          ways);
    }
    return new Selection(SandboxBackend.NATIVE, "native requested (" + probe.tool() + ")", null);
  }

  private static Selection refusedSelection(String reason, List<String> waysOut) {
    return new Selection(SandboxBackend.NONE, reason, Verdict.refused(reason, waysOut));
  }

  static Verdict globRefusal(String glob) {
    return globRefusal(glob, null);
  }

  static Verdict globRefusal(String glob, String layerMissing) {
    return Verdict.refused(
        "bubblewrap cannot deny creating " + glob + " inside a writable mount"
            + (layerMissing == null ? "" : ", and the name-deny layer cannot run: " + layerMissing),
        waysOut(layerMissing,
            WaysOut.DROP_DENY_WRITE_GLOBS,
            WaysOut.SANDBOX_OFF));
  }

  /** The ways out, led by installing the name-deny layer when the host was probed for it. */
  private static List<String> waysOut(String layerMissing, String... others) {
    List<String> out = new ArrayList<>();
    if (layerMissing != null) {
      out.add(NameDenyLayer.INSTALL);
    }
    out.addAll(List.of(others));
    return out;
  }

  /**
   * bubblewrap covers paths that exist when the sandbox starts; a protected path written as a
   * pattern names no path it could cover, so inside a writable mount it would not hold at all.
   */
  static Verdict protectedGlobRefusal(List<String> protectedPaths, List<String> writableRoots) {
    return protectedGlobRefusal(protectedPaths, writableRoots, null);
  }

  static Verdict protectedGlobRefusal(
      List<String> protectedPaths, List<String> writableRoots, String layerMissing) {
    for (String p : DenySpellings.ofAll(protectedPaths)) {
      if (!RunPaths.isGlob(p)) {
        continue;
      }
      for (String root : writableRoots) {
        for (String spelling : DenySpellings.of(root)) {
          if (PathGlob.mayMatchAtOrBelow(p, spelling)) {
            return Verdict.refused(
                "bubblewrap cannot protect " + UntrustedText.printable(p) + " inside the writable mount "
                    + UntrustedText.printable(root) + ": it covers only paths that exist, never a pattern"
                    + (layerMissing == null ? ""
                        : ", and the name-deny layer cannot run: " + layerMissing),
                waysOut(layerMissing,
                    "list the protected paths without * or ? (each one that exists is then"
                        + " covered read-only), or keep the pattern outside every writable mount",
                    WaysOut.SANDBOX_OFF));
          }
        }
      }
    }
    return null;
  }

  /**
   * The run's bind mounts; each added to {@code named} too, with its field and what it is to the
   * sandbox, for {@link MountOverlaps}.
   */
  private List<SandboxBindMount> mounts(Dispatch dispatch, Mode mode, RunPaths paths,
      List<MountOverlaps.Mount> named) {
    boolean writable = !mode.isReadOnly();
    requireDirectory(paths.workdir(), "workdir");
    List<SandboxBindMount> mounts = new ArrayList<>();
    MountOverlaps.Kind shared =
        writable ? MountOverlaps.Kind.WRITABLE : MountOverlaps.Kind.READ_ONLY;
    add(mounts, named, "workdir", paths.workdir(), shared);
    if (dispatch == Dispatch.HARNESS_BASH) {
      // Not mounted, but what the request names stays out of every writable mount all the same.
      unmounted(named, "agentConfigDir", paths.agentConfigDir());
      unmounted(named, "reposDir", paths.reposDir());
      unmounted(named, "attachmentsDir", paths.attachmentsDir());
      return mounts;
    }
    if (paths.agentConfigDir() == null) {
      throw new SandboxRequestException(
          "agentConfigDir", "agentConfigDir is required for the claude-code and acp runners"
              + " (claude-code is the default): give the agent's config directory as"
              + " agentConfigDir, or \"runner\": \"harness-bash\" for a run that needs only its"
              + " workdir");
    }
    requireDirectory(paths.agentConfigDir(), "agentConfigDir");
    add(mounts, named, "agentConfigDir", paths.agentConfigDir(),
        MountOverlaps.Kind.AGENT_CONFIG);
    if (paths.reposDir() != null) {
      requireNotContaining("reposDir", paths.reposDir(), "workdir", paths.workdir());
      requireNotContaining("reposDir", paths.reposDir(), "agentConfigDir", paths.agentConfigDir());
      if (Files.isDirectory(Path.of(paths.reposDir()))) {
        add(mounts, named, "reposDir", paths.reposDir(), shared);
      } else {
        unmounted(named, "reposDir", paths.reposDir());
      }
    }
    if (paths.attachmentsDir() != null) {
      requireNotContaining("attachmentsDir", paths.attachmentsDir(), "workdir", paths.workdir());
      requireNotContaining(
          "attachmentsDir", paths.attachmentsDir(), "agentConfigDir", paths.agentConfigDir());
      if (Files.isDirectory(Path.of(paths.attachmentsDir()))) {
        add(mounts, named, "attachmentsDir", paths.attachmentsDir(),
            MountOverlaps.Kind.READ_ONLY);
      } else {
        unmounted(named, "attachmentsDir", paths.attachmentsDir());
      }
    }
    return mounts;
  }

  private static void unmounted(List<MountOverlaps.Mount> named, String field, String path) {
    if (path != null) {
      named.add(new MountOverlaps.Mount(field, path, MountOverlaps.Kind.UNMOUNTED));
    }
  }

  private static void add(List<SandboxBindMount> mounts, List<MountOverlaps.Mount> named,
      String field, String path, MountOverlaps.Kind kind) {
    mounts.add(SandboxBindMount.of(path, kind.readOnly()));
    named.add(new MountOverlaps.Mount(field, path, kind));
  }

  /**
   * Refuses a runner state directory (writable in every mode), or a writable mount, that would
   * open a read-only mount or a protected path: the same directory, or one around it, as the
   * kernel resolves them ({@link MountOverlaps}).
   */
  private static void requireNoneOpened(List<MountOverlaps.Mount> mounts, RunPaths paths) {
    List<MountOverlaps.Mount> all = new ArrayList<>(mounts);
    List<String> stateFields = new ArrayList<>();
    for (int i = 0; i < paths.runnerStateDirs().size(); i++) {
      String field = "runnerStateDirs[" + i + "]";
      requireDirectory(paths.runnerStateDirs().get(i), field);
      stateFields.add(field);
      all.add(new MountOverlaps.Mount(field, paths.runnerStateDirs().get(i),
          MountOverlaps.Kind.WRITABLE));
    }
    for (int i = 0; i < paths.protectedPaths().size(); i++) {
      String p = paths.protectedPaths().get(i);
      if (!RunPaths.isGlob(p)) { // a pattern is the name-deny layer's, at every spelling
        all.add(new MountOverlaps.Mount("protectedPaths[" + i + "]", p,
            MountOverlaps.Kind.PROTECTED));
      }
    }
    MountOverlaps.check(all, stateFields);
  }

  private static void requireDirectory(String path, String field) {
    if (!Files.isDirectory(Path.of(path))) {
      throw new SandboxRequestException(
          field, field + " does not exist or is not a directory: " + UntrustedText.printable(path));
    }
  }

  /**
   * A shared mount that contains the agent's own directories would also contain its siblings':
   * refuse it rather than mount them.
   */
  private static void requireNotContaining(
      String sharedField, String shared, String ownField, String own) {
    boolean contains = Path.of(own).startsWith(Path.of(shared));
    if (!contains) {
      try {
        contains = Path.of(own).toRealPath().startsWith(Path.of(shared).toRealPath());
      } catch (IOException | SecurityException e) {
        contains = false;
      }
    }
    if (contains) {
      throw new SandboxRequestException(
          sharedField,
          sharedField + " " + UntrustedText.printable(shared) + " contains " + ownField + " "
              + UntrustedText.printable(own) + ": mounting it would expose sibling agents' directories");
    }
  }

  private FilesystemPolicy filesystem(
      List<SandboxBindMount> mounts, RunPaths paths, DenyWriteGlobs globs) {
    Set<String> writable = new LinkedHashSet<>();
    for (SandboxBindMount m : mounts) {
      if (!m.readOnly()) {
        writable.add(m.hostPath());
      }
    }
    writable.addAll(paths.runnerStateDirs());

    Set<String> readDeny = new LinkedHashSet<>();
    if (home != null) {
      for (String rel : SECRET_READ_DENY) {
        readDeny.addAll(DenySpellings.of(home.resolve(rel).toString()));
      }
    }

    Set<String> writeDeny = new LinkedHashSet<>();
    for (String p : paths.protectedPaths()) {
      writeDeny.addAll(DenySpellings.of(p));
    }
    for (String root : writable) {
      for (String rel : MANDATORY_WRITE_DENY) {
        writeDeny.addAll(DenySpellings.of(Path.of(root).resolve(rel).toString()));
      }
    }
    for (String root : paths.runnerStateDirs()) {
      for (String rel : RUNNER_STATE_WRITE_DENY) {
        writeDeny.addAll(DenySpellings.of(Path.of(root).resolve(rel).toString()));
      }
    }
    return new FilesystemPolicy(
        List.copyOf(writable), List.copyOf(readDeny), List.copyOf(writeDeny), globs.globs());
  }

  private Enforcement enforcement(
      SandboxBackend effective,
      Verdict verdict,
      String backendReason,
      EgressPolicy egress,
      SandboxRequest request,
      FilesystemPolicy filesystem,
      boolean inherit,
      boolean layered) {
    boolean wrapped = effective.wraps();
    String osNote;
    if (effective == SandboxBackend.NATIVE) {
      osNote = probe.note();
      if (layered) {
        osNote += "; " + NAME_DENY_NOTE;
      }
    } else if (effective == SandboxBackend.MICROVM) {
      osNote = "microVM — the run does not execute on the host (kernel boundary)";
    } else {
      osNote = backendReason;
    }

    String networkNote;
    if (!verdict.launches()) {
      networkNote = "not launched";
    } else if (wrapped && request.networkEnabled()) {
      int extra = 0;
      for (EgressRule r : egress.allowlist()) {
        if (r.source() == EgressRule.Source.EGRESS_ALLOWLIST) {
          extra++;
        }
      }
      networkNote =
          "egress limited to " + egress.allowlist().size()
              + " allowlist entries (baseline, GitHub, " + extra
              + " from egressAllowlist); the fixed deny list wins";
    } else if (wrapped) {
      networkNote = "network off by the access-network rule: every outbound connection is refused";
    } else if (request.networkEnabled()) {
      networkNote =
          "not enforced: without an OS sandbox the run reaches the network as the appliance's user";
    } else {
      networkNote =
          "network off by the access-network rule, but not enforced: without an OS sandbox the run"
              + " reaches the network as the appliance's user";
    }

    String envNote =
        inherit
            ? "inherited from the host: Claude Code without a sandbox runs through the no-sandbox"
                + " adapter"
            : "sanitised: an allowlist (PATH, HOME, USER, SHELL, LANG, LC_*, TERM, TZ, TMPDIR, git's"
                + " author and committer, the names the operator passes) and the run's own"
                + " variables; everything else of the launcher's environment is dropped";

    // Under bubblewrap on Linux a launched run either has no writable mount or runs under the
    // name-deny layer whenever globs are set (otherwise it was refused), so nothing matching them
    // can be created; under Seatbelt the profile denies them.
    List<String> enforcedGlobs =
        effective == SandboxBackend.NATIVE ? filesystem.writeDenyGlobs() : List.of();

    List<String> weakenings = new ArrayList<>();
    DenyWriteGlobs globs = request.denyWriteGlobs();
    if (globs.explicit()) {
      List<String> weakened = globs.weakenedFromDefault();
      if (!weakened.isEmpty()) {
        weakenings.add(
            "denyWriteGlobs set by the rules to " + globs.globs() + ", not the default secret"
                + " files: what " + String.join(", ", weakened) + " names may be written inside"
                + " writable mounts");
      }
    }
    if (verdict.launches() && !wrapped) {
      if (sandboxSwitch == SandboxSwitch.OFF) {
        weakenings.add(SandboxSwitch.DISABLED + ": no OS confinement");
      } else if (request.requestedBackend() != null) {
        weakenings.add("backend none requested: no OS confinement");
      }
    }
    return new Enforcement(
        true, true, true, true, wrapped, osNote, wrapped, networkNote, !inherit, envNote,
        enforcedGlobs, weakenings);
  }
}
