package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pushgate.policy.Mode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

class SandboxPlannerTest {
  private static final ProbeResult MAC = BackendProbe.probe(Platform.MACOS, n -> false);
  private static final ProbeResult LINUX = BackendProbe.probe(Platform.LINUX, n -> true);
  private static final ProbeResult WSL2 = BackendProbe.probe(Platform.WSL2, n -> true);
  private static final ProbeResult LINUX_NO_SOCAT =
      BackendProbe.probe(Platform.LINUX, Set.of("bwrap")::contains);
  private static final ProbeResult WINDOWS = BackendProbe.probe(Platform.WINDOWS, n -> true);
  private static final DenyWriteGlobs NO_GLOBS = DenyWriteGlobs.explicit(List.of());
  /** The way out every refusal of the native sandbox offers, as an operator reads it. */
  private static final String SANDBOX_OFF =
      "start pushgate with --sandbox off: no confinement at all, reported as such";

  @TempDir Path dir;
  private Path root;
  private Path workdir;
  private Path configDir;
  private Path reposDir;
  private Path attachmentsDir;
  private Path stateDir;
  private Path home;
  private Path checkout;

  @BeforeEach
  void layout() throws IOException {
    root = dir.toRealPath();
    workdir = Files.createDirectories(root.resolve("conv/agents/a1/work"));
    configDir = Files.createDirectories(root.resolve("conv/agents/a1/config"));
    Files.createDirectories(root.resolve("conv/agents/a2/work"));
    reposDir = Files.createDirectories(root.resolve("conv/repos"));
    attachmentsDir = Files.createDirectories(root.resolve("space/attachments"));
    stateDir = Files.createDirectories(root.resolve("state/claude"));
    home = Files.createDirectories(root.resolve("home/u"));
    checkout = Files.createDirectories(root.resolve("home/u/src/repo"));
  }

  private SandboxPlanner planner(ProbeResult probe) {
    return planner(probe, SandboxSwitch.ON, false);
  }

  private SandboxPlanner planner(ProbeResult probe, SandboxSwitch sw, boolean microVm) {
    Map<String, String> host = new LinkedHashMap<>();
    host.put("PATH", "/usr/bin");
    host.put("LD_PRELOAD", "/opt/inject.so");
    host.put("GITHUB_TOKEN", "ghp_hostToken");
    return new SandboxPlanner(
        probe, sw, microVm, home, EnvironmentVariables.of(host), EgressLists.embedded(),
        PassedVariables.NONE);
  }

  private RunPaths overlayPaths() {
    return new RunPaths(
        workdir.toString(), configDir.toString(), reposDir.toString(), attachmentsDir.toString(),
        List.of(checkout.toString()), List.of(), List.of());
  }

  private SandboxRequest.Builder overlay(Runner runner) {
    return SandboxRequest.builder("space-1", "ws-1", runner, overlayPaths()).agentId("a1");
  }

  /** The plan on {@code probe}'s host of an ACP overlay run, the request shaped by {@code with}. */
  private SandboxPlan acpPlan(ProbeResult probe, UnaryOperator<SandboxRequest.Builder> with) {
    return planner(probe).plan(with.apply(overlay(Runner.ACP)).build());
  }

  // ---- mounts ----

  @Test
  void overlayDispatchMountsTheFourPathsOfTheRunInChat() {
    SandboxPlan plan = planner(MAC).plan(overlay(Runner.CLAUDE_CODE).build());
    assertThat(plan.spec().bindMounts())
        .containsExactly(
            SandboxBindMount.of(workdir.toString(), false),
            SandboxBindMount.of(configDir.toString(), true),
            SandboxBindMount.of(reposDir.toString(), false),
            SandboxBindMount.of(attachmentsDir.toString(), true));
    assertThat(plan.spec().guestWorkdir()).isEqualTo(workdir.toString());
    assertThat(plan.spec().sessionId()).isEqualTo("space-1");
    assertThat(plan.spec().workspaceId()).isEqualTo("ws-1");
    assertThat(plan.spec().agentId()).isEqualTo("a1");
  }

  @ParameterizedTest(name = "{0} {1}: workdir ro={2}, repos ro={3}")
  @CsvSource({
    "CHAT,        CLAUDE_CODE,  false, false",
    "REVIEW,      CLAUDE_CODE,  true,  true",
    "PLAN,        ACP,          true,  true",
    "ORCHESTRATE, ACP,          true,  true",
    "CHAT,        ACP,          false, false",
    "CHAT,        HARNESS_BASH, false, ",
    "REVIEW,      HARNESS_BASH, true,  ",
    "PLAN,        HARNESS_BASH, true,  ",
    "ORCHESTRATE, HARNESS_BASH, true,  ",
  })
  void modeDecidesWhetherMountsAreWritable(
      Mode mode, Runner runner, boolean workdirReadOnly, Boolean reposReadOnly) {
    SandboxPlan plan = planner(MAC).plan(overlay(runner).mode(mode).build());
    List<SandboxBindMount> expected = new ArrayList<>();
    expected.add(SandboxBindMount.of(workdir.toString(), workdirReadOnly));
    if (reposReadOnly != null) {
      expected.add(SandboxBindMount.of(configDir.toString(), true));
      expected.add(SandboxBindMount.of(reposDir.toString(), reposReadOnly));
      expected.add(SandboxBindMount.of(attachmentsDir.toString(), true));
    }
    assertThat(plan.spec().bindMounts()).containsExactlyElementsOf(expected);
    assertThat(plan.spec().mode()).isEqualTo(mode);
  }

  @Test
  void sharedDirsAreMountedOnlyWhenTheyExist() throws IOException {
    Files.delete(reposDir);
    Files.delete(attachmentsDir);
    SandboxPlan plan = planner(MAC).plan(overlay(Runner.ACP).build());
    assertThat(plan.spec().bindMounts())
        .containsExactly(
            SandboxBindMount.of(workdir.toString(), false),
            SandboxBindMount.of(configDir.toString(), true));
  }

  @Test
  void neverMountsASiblingAgentsDirectory() {
    for (Runner runner : Runner.values()) {
      for (Mode mode : Mode.values()) {
        SandboxPlan plan = planner(MAC).plan(overlay(runner).mode(mode).build());
        for (SandboxBindMount m : plan.spec().bindMounts()) {
          Path sibling = root.resolve("conv/agents/a2");
          assertThat(Path.of(m.hostPath()).startsWith(sibling)).as(m.hostPath()).isFalse();
          assertThat(sibling.startsWith(Path.of(m.hostPath()))).as(m.hostPath()).isFalse();
        }
      }
    }
  }

  @Test
  void refusesASharedDirThatContainsTheAgentsOwnDirectories() {
    RunPaths paths =
        new RunPaths(
            workdir.toString(), configDir.toString(), root.resolve("conv").toString(), null,
            List.of(), List.of(), List.of());
    assertPlanningThrows(Runner.ACP, paths)
        .isInstanceOfSatisfying(
            SandboxRequestException.class, e -> assertThat(e.field()).isEqualTo("reposDir"))
        .hasMessage(
            "reposDir " + root.resolve("conv") + " contains workdir " + workdir
                + ": mounting it would expose sibling agents' directories");
  }

  @Test
  void refusesASharedDirThatReachesTheAgentsDirectoriesThroughASymlink() throws IOException {
    Path link = Files.createSymbolicLink(root.resolve("conv-link"), root.resolve("conv"));
    RunPaths paths =
        new RunPaths(
            workdir.toString(), configDir.toString(), null, link.toString(),
            List.of(), List.of(), List.of());
    assertPlanningThrows(Runner.ACP, paths)
        .isInstanceOfSatisfying(
            SandboxRequestException.class, e -> assertThat(e.field()).isEqualTo("attachmentsDir"));
  }

  /** Asserts on what planning a run of {@code runner} on {@code paths} on a Mac throws. */
  private AbstractThrowableAssert<?, ? extends Throwable> assertPlanningThrows(
      Runner runner, RunPaths paths) {
    return assertThatThrownBy(
        () -> planner(MAC).plan(SandboxRequest.builder("s", "w", runner, paths).build()));
  }

  // ---- path validation ----

  @Test
  void refusesMissingOrRelativePathsNamingTheField() {
    assertThatThrownBy(() -> new RunPaths(null, null, null, null, null, null, null))
        .isInstanceOfSatisfying(
            SandboxRequestException.class, e -> assertThat(e.field()).isEqualTo("workdir"))
        .hasMessage("workdir is missing");
    assertThatThrownBy(() -> RunPaths.workdirOnly("conv/work"))
        .hasMessage("workdir must be an absolute path: conv/work");
    assertThatThrownBy(
            () -> new RunPaths("/w", "config", null, null, null, null, null))
        .isInstanceOfSatisfying(
            SandboxRequestException.class, e -> assertThat(e.field()).isEqualTo("agentConfigDir"))
        .hasMessage("agentConfigDir must be an absolute path: config");
    assertThatThrownBy(
            () -> new RunPaths("/w", null, null, null, List.of("/ok", "src/repo"), null, null))
        .isInstanceOfSatisfying(
            SandboxRequestException.class,
            e -> assertThat(e.field()).isEqualTo("protectedPaths[1]"))
        .hasMessage("protectedPaths[1] must be an absolute path: src/repo");
    assertThatThrownBy(
            () -> new RunPaths("/w", null, null, null, null, List.of(""), null))
        .hasMessage("runnerStateDirs[0] is missing");
    assertThatThrownBy(() -> new RunPaths("/w", null, "/a/../b", null, null, null, null))
        .hasMessage("reposDir must not contain . or .. segments: /a/../b");
    assertThatThrownBy(() -> new RunPaths("/w/*", null, null, null, null, null, null))
        .hasMessage("workdir must be a path, not a pattern: /w/*");
    assertThatThrownBy(() -> new RunPaths("/w\n", null, null, null, null, null, null))
        .hasMessage("workdir has a control character: /w\\x0a");
    assertThatThrownBy(() -> new RunPaths("/w", null, null, null, List.of("src/*"), null, null))
        .hasMessage("protectedPaths[0] must be an absolute path: src/*");
  }

  @Test
  void refusesAnOverlayRunWithoutConfigDirOrWithAMissingWorkdir() {
    RunPaths noConfig = RunPaths.workdirOnly(workdir.toString());
    assertPlanningThrows(Runner.ACP, noConfig)
        .isInstanceOfSatisfying(
            SandboxRequestException.class, e -> assertThat(e.field()).isEqualTo("agentConfigDir"))
        .hasMessage("agentConfigDir is required for the claude-code and acp runners (claude-code"
            + " is the default): give the agent's config directory as agentConfigDir, or"
            + " \"runner\": \"harness-bash\" for a run that needs only its workdir");
    RunPaths gone = RunPaths.workdirOnly(root.resolve("gone").toString());
    assertPlanningThrows(Runner.HARNESS_BASH, gone)
        .hasMessage("workdir does not exist or is not a directory: " + root.resolve("gone"));
  }

  @Test
  void refusesBadRequestFields() {
    assertThatThrownBy(() -> SandboxRequest.builder(null, "w", Runner.ACP, overlayPaths()).build())
        .hasMessage("sessionId is missing");
    assertThatThrownBy(() -> SandboxRequest.builder("s", "w", null, overlayPaths()).build())
        .hasMessage("runner is missing");
    assertThatThrownBy(
            () -> planner(MAC).plan(overlay(Runner.ACP).requestedBackend("firecracker").build()))
        .isInstanceOfSatisfying(
            SandboxRequestException.class,
            e -> assertThat(e.field()).isEqualTo("requestedBackend"))
        .hasMessage("unknown sandbox backend: firecracker (expected native, none or microvm)");
    assertThatThrownBy(
            () ->
                planner(MAC)
                    .plan(overlay(Runner.ACP).egressAllowlist(List.of("*.com")).build()))
        .isInstanceOfSatisfying(
            SandboxRequestException.class, e -> assertThat(e.field()).isEqualTo("egressAllowlist"))
        .hasMessage(
            "egressAllowlist: wildcard is too broad, it covers a whole top-level domain: *.com");
    assertThatThrownBy(() -> DenyWriteGlobs.explicit(List.of("secrets/*.pem")))
        .isInstanceOfSatisfying(
            SandboxRequestException.class,
            e -> assertThat(e.field()).isEqualTo("denyWriteGlobs[0]"))
        .hasMessage("denyWriteGlobs[0] must be a file name pattern without /: secrets/*.pem");
  }

  // ---- deny lists ----

  /** Each of {@code names} resolved under {@code dir}, as the plan spells paths. */
  private static String[] under(Path dir, String... names) {
    return java.util.Arrays.stream(names).map(n -> dir.resolve(n).toString())
        .toArray(String[]::new);
  }

  @Test
  void deniesReadingSecretsUnderHome() {
    SandboxPlan plan = planner(MAC).plan(overlay(Runner.CLAUDE_CODE).build());
    assertThat(plan.filesystem().readDeny())
        .startsWith(under(home, ".ssh", ".aws", ".gnupg", ".config/gh", "Library/Keychains"))
        .contains(under(home, ".git-credentials", ".netrc"));
  }

  @Test
  void emitsBothSpellingsOfSecretsUnderASymlinkedHome() throws IOException {
    Path linkedHome = Files.createSymbolicLink(root.resolve("home-link"), home);
    SandboxPlanner p =
        new SandboxPlanner(
            MAC, SandboxSwitch.ON, false, linkedHome, EnvironmentVariables.empty(),
            EgressLists.embedded(), PassedVariables.NONE);
    assertThat(p.plan(overlay(Runner.ACP).build()).filesystem().readDeny())
        .startsWith(linkedHome.resolve(".ssh").toString(), home.resolve(".ssh").toString());
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void protectedPathsAreWriteDeniedInEveryModeInBothSpellings(Mode mode) throws IOException {
    Path link = Files.createSymbolicLink(root.resolve("checkout-link"), checkout);
    RunPaths paths =
        new RunPaths(
            workdir.toString(), configDir.toString(), null, null,
            List.of(link.toString(), root.resolve("other/*.git").toString()), List.of(), List.of());
    SandboxPlan plan =
        planner(MAC).plan(SandboxRequest.builder("s", "w", Runner.ACP, paths).mode(mode).build());
    assertThat(plan.filesystem().writeDeny())
        .startsWith(link.toString(), checkout.toString(), root.resolve("other/*.git").toString());
    assertThat(plan.spec().protectedPaths())
        .containsExactly(link.toString(), root.resolve("other/*.git").toString());
  }

  @Test
  void deniesWritingShellRcGitHooksAndRunnerConfigInsideWritableRoots() {
    RunPaths paths =
        new RunPaths(
            workdir.toString(), configDir.toString(), reposDir.toString(), null, List.of(),
            List.of(stateDir.toString()), List.of());
    SandboxPlan chat =
        planner(MAC).plan(SandboxRequest.builder("s", "w", Runner.CLAUDE_CODE, paths).build());
    assertThat(chat.filesystem().writableRoots())
        .containsExactly(workdir.toString(), reposDir.toString(), stateDir.toString());
    for (Path root : List.of(workdir, reposDir, stateDir)) {
      assertThat(chat.filesystem().writeDeny())
          .contains(under(root, ".bashrc", ".zshrc", ".profile", ".git/hooks", ".git/config",
              ".claude/settings.json", ".claude/settings.local.json", ".mcp.json"));
    }
    assertThat(chat.filesystem().writeDeny())
        .contains(stateDir.resolve("settings.json").toString(), stateDir.resolve("hooks").toString())
        .doesNotContain(configDir.resolve(".bashrc").toString())
        .doesNotContain(workdir.resolve("settings.json").toString());
  }

  @Test
  void deniesTheGitMetadataThatRunsProgramsOrNamesAnotherRepositoryButNotWhatACommitWrites() {
    SandboxPlan chat = planner(LINUX).plan(overlay(Runner.ACP).denyWriteGlobs(NO_GLOBS).build());
    for (String rel : List.of("config", "config.worktree", "hooks", "info", "modules",
        "worktrees", "branches", "remotes", "objects/info/alternates",
        "objects/info/http-alternates")) {
      assertThat(chat.filesystem().writeDeny()).contains(workdir.resolve(".git/" + rel).toString());
    }
    assertThat(chat.filesystem().writeDeny()).noneMatch(p -> p.endsWith("/.git")
        || p.contains("/.git/objects/pack") || p.contains("/.git/refs")
        || p.endsWith("/.git/index") || p.endsWith("/.git/HEAD") || p.endsWith("/.git/logs"));
  }

  @ParameterizedTest
  @EnumSource(
      value = Mode.class,
      names = {"REVIEW", "PLAN", "ORCHESTRATE"})
  void runnerStateDirsStayWritableInReadOnlyModes(Mode mode) {
    RunPaths paths =
        new RunPaths(
            workdir.toString(), configDir.toString(), reposDir.toString(), null, List.of(),
            List.of(stateDir.toString()), List.of());
    SandboxPlan plan =
        planner(MAC)
            .plan(SandboxRequest.builder("s", "w", Runner.CLAUDE_CODE, paths).mode(mode).build());
    assertThat(plan.filesystem().writableRoots()).containsExactly(stateDir.toString());
    assertThat(plan.spec().runnerStateDirs()).containsExactly(stateDir.toString());
    assertThat(plan.filesystem().writeDeny())
        .contains(stateDir.resolve(".bashrc").toString())
        .doesNotContain(workdir.resolve(".bashrc").toString());
  }

  // ---- backend selection ----

  @ParameterizedTest(name = "{0} {1} requested={2} microvm={3} -> {4} {5}")
  @CsvSource(
      delimiter = '|',
      nullValues = "-",
      value = {
        "MAC        | ON  | -       | false | NATIVE  | allowed | backend not specified: native (sandbox-exec)",
        "MAC        | ON  | native  | false | NATIVE  | allowed | native requested (sandbox-exec)",
        "MAC        | ON  | docker  | false | NATIVE  | allowed | native requested (sandbox-exec)",
        "MAC        | ON  | none    | false | NONE    | allowed | backend none requested",
        "MAC        | OFF | -       | false | NONE    | allowed | agent sandbox DISABLED by the sandbox setting off (--sandbox, PUSHGATE_SANDBOX or the config file; pushgate config check says which)",
        "MAC        | OFF | native  | false | NONE    | refused | not launched: native sandbox requested, but agent sandbox DISABLED by the sandbox setting off (--sandbox, PUSHGATE_SANDBOX or the config file; pushgate config check says which)",
        "MAC        | OFF | none    | false | NONE    | allowed | backend none requested",
        "MAC        | ON  | microvm | false | NONE    | refused | not launched: microvm sandbox requested, but this host has no microVM runtime",
        "MAC        | ON  | microvm | true  | MICROVM | allowed | microvm requested",
        "MAC        | OFF | microvm | true  | NONE    | refused | not launched: microvm sandbox requested, but agent sandbox DISABLED by the sandbox setting off (--sandbox, PUSHGATE_SANDBOX or the config file; pushgate config check says which)",
        "MAC        | ON  | -       | true  | NATIVE  | allowed | backend not specified: native (sandbox-exec)",
        "LINUX      | ON  | -       | false | NATIVE  | allowed | backend not specified: native (bwrap)",
        "LINUX_NO_SOCAT | ON | -    | false | NONE    | allowed | no OS-native agent sandbox on this host: sudo apt-get install socat",
        "LINUX_NO_SOCAT | ON | native | false | NONE  | refused | not launched: native sandbox requested, but there is no OS-native agent sandbox on this host: sudo apt-get install socat",
        "WINDOWS    | ON  | -       | false | NONE    | allowed | no OS-native agent sandbox on this host: native sandbox is not offered on this platform",
        "WINDOWS    | ON  | native  | false | NONE    | refused | not launched: native sandbox requested, but there is no OS-native agent sandbox on this host: native sandbox is not offered on this platform",
      })
  void choosesTheEffectiveBackendAndNeverFallsBackSilently(
      String host,
      SandboxSwitch sw,
      String requested,
      boolean microVm,
      SandboxBackend effective,
      String launch,
      String reason) {
    ProbeResult probe =
        Map.of("MAC", MAC, "LINUX", LINUX, "LINUX_NO_SOCAT", LINUX_NO_SOCAT, "WINDOWS", WINDOWS)
            .get(host);
    SandboxPlan plan =
        planner(probe, sw, microVm)
            .plan(overlay(Runner.ACP).requestedBackend(requested).denyWriteGlobs(NO_GLOBS).build());
    assertThat(plan.effectiveBackend()).isEqualTo(effective);
    assertThat(plan.verdict().launch().id()).isEqualTo(launch);
    assertThat(plan.backendReason()).isEqualTo(reason);
    assertThat(plan.enforcement().osSandbox()).isEqualTo(effective.wraps());
    assertThat(plan.requestedBackend()).isEqualTo(SandboxBackend.parseRequested(requested).orElse(null));
  }

  @Test
  void anExplicitMicroVmOnAHostThatCannotBootOneIsRefusedWithTheProbesReasonNeverNative() {
    SandboxPlan plan = planner(LINUX, SandboxSwitch.ON, true)
        .withMicroVm(MicroVmStatus.unavailable("/dev/kvm does not exist: this host offers no KVM"))
        .plan(overlay(Runner.ACP).requestedBackend("microvm").denyWriteGlobs(NO_GLOBS).build());
    assertThat(plan.effectiveBackend()).isEqualTo(SandboxBackend.NONE);
    assertThat(plan.verdict().launches()).isFalse();
    assertThat(plan.verdict().reason()).isEqualTo("microvm sandbox requested, but the microvm"
        + " backend is unavailable: /dev/kvm does not exist: this host offers no KVM");
  }

  @Test
  void anUnspecifiedBackendFallsBackToNativeWhenTheHostCannotBootAMicroVm() {
    SandboxPlan plan = planner(LINUX, SandboxSwitch.ON, false)
        .withMicroVm(MicroVmStatus.unavailable("/dev/kvm does not exist: this host offers no KVM"))
        .plan(overlay(Runner.ACP).denyWriteGlobs(NO_GLOBS).build());
    assertThat(plan.effectiveBackend()).isEqualTo(SandboxBackend.NATIVE);
    assertThat(plan.backendReason()).isEqualTo("backend not specified: native (bwrap)");
  }

  @Test
  void anUnavailableExplicitRequestNamesTheWaysOut() {
    SandboxPlan plan =
        planner(LINUX_NO_SOCAT).plan(overlay(Runner.ACP).requestedBackend("native").build());
    assertThat(plan.verdict().waysOut())
        .containsExactly(
            "install the missing packages: sudo apt-get install socat",
            "leave the backend unspecified to wrap the run when the host offers a sandbox");
    assertThat(plan.verdict().reason())
        .isEqualTo(
            "native sandbox requested, but there is no OS-native agent sandbox on this host:"
                + " sudo apt-get install socat");
  }

  @Test
  void aRefusalFoundOutsideTheSandboxRefusesAPlanThatWouldLaunch() {
    Verdict pushUrl = Verdict.refused("the workdir's push URLs cannot be sent to the gateway",
        List.of("fix the push URL"));
    SandboxPlan plan = planner(MAC).plan(overlay(Runner.CLAUDE_CODE).build(), pushUrl);
    assertThat(plan.verdict()).isEqualTo(pushUrl);
    assertThat(plan.effectiveBackend()).isEqualTo(SandboxBackend.NONE);
    assertThat(plan.backendReason())
        .isEqualTo("not launched: the workdir's push URLs cannot be sent to the gateway");
    assertThat(plan.enforcement().osSandbox()).isFalse();
    assertThat(planner(MAC).plan(overlay(Runner.CLAUDE_CODE).build(), null).verdict().launches())
        .isTrue();
  }

  // ---- file-name glob denies ----

  private static final NameDenyLayer.Availability LAYER =
      new NameDenyLayer.Availability("/usr/lib/pushgate/pushgate-denyfs", null);
  private static final NameDenyLayer.Availability NO_LAYER =
      new NameDenyLayer.Availability(null, "this host lacks fusermount3 (Debian: fuse3)");

  @Test
  void withTheNameDenyLayerTheDefaultGlobsLaunchOnLinuxAndTheSummaryNamesIt() {
    SandboxPlan plan = planner(LINUX).withNameDenyLayer(LAYER)
        .plan(overlay(Runner.ACP).build());
    assertThat(plan.verdict().launches()).isTrue();
    assertThat(plan.effectiveBackend()).isEqualTo(SandboxBackend.NATIVE);
    assertThat(plan.enforcement().osSandboxNote())
        .endsWith("; " + SandboxPlanner.NAME_DENY_NOTE);
    assertThat(plan.enforcement().writeDenyGlobs()).isEqualTo(DenyWriteGlobs.DEFAULT_GLOBS);
    assertThat(plan.enforcement().weakenings()).isEmpty();
    // A protected pattern inside a writable mount launches under the layer too.
    String glob = reposDir.resolve("*.bak").toString();
    RunPaths paths = new RunPaths(workdir.toString(), configDir.toString(), reposDir.toString(),
        null, List.of(glob), List.of(), List.of());
    SandboxPlan patterned = planner(LINUX).withNameDenyLayer(LAYER).plan(
        SandboxRequest.builder("s", "w", Runner.ACP, paths).denyWriteGlobs(NO_GLOBS).build());
    assertThat(patterned.verdict().launches()).isTrue();
    assertThat(patterned.enforcement().osSandboxNote()).contains("pushgate-denyfs");
    // Without name denies the layer is not used, and the summary does not claim it.
    SandboxPlan none = planner(LINUX).withNameDenyLayer(LAYER)
        .plan(overlay(Runner.ACP).denyWriteGlobs(NO_GLOBS).build());
    assertThat(none.enforcement().osSandboxNote()).doesNotContain("pushgate-denyfs");
  }

  @Test
  void withoutTheNameDenyLayerTheRefusalSaysWhyAndHowToInstallIt() {
    SandboxPlan plan = planner(LINUX).withNameDenyLayer(NO_LAYER)
        .plan(overlay(Runner.ACP).build());
    assertThat(plan.verdict().launch()).isEqualTo(Verdict.Launch.REFUSED);
    assertThat(plan.verdict().reason()).isEqualTo("bubblewrap cannot deny creating .env inside a"
        + " writable mount, and the name-deny layer cannot run: this host lacks fusermount3"
        + " (Debian: fuse3)");
    assertThat(plan.verdict().waysOut()).hasSize(3).first().isEqualTo(NameDenyLayer.INSTALL);
    assertThat(plan.effectiveBackend()).isEqualTo(SandboxBackend.NONE);
    // A Mac needs no layer: Seatbelt denies names itself.
    assertThat(planner(MAC).withNameDenyLayer(NO_LAYER).plan(overlay(Runner.ACP).build())
        .verdict().launches()).isTrue();
  }

  @ParameterizedTest
  @EnumSource(
      value = Runner.class,
      names = {"CLAUDE_CODE", "ACP", "HARNESS_BASH"})
  void linuxRefusesTheDefaultGlobDeniesItCannotEnforce(Runner runner) {
    SandboxPlan plan = planner(LINUX).plan(overlay(runner).build());
    assertThat(plan.verdict().launch()).isEqualTo(Verdict.Launch.REFUSED);
    assertThat(plan.verdict().reason())
        .isEqualTo("bubblewrap cannot deny creating .env inside a writable mount");
    assertThat(plan.verdict().waysOut())
        .containsExactly(
            "set denyWriteGlobs in the workspace rules (for example to []): the run then launches"
                + " under bubblewrap and the enforcement summary reports the explicit weakening",
            SANDBOX_OFF);
    assertThat(plan.effectiveBackend()).isEqualTo(SandboxBackend.NONE);
    assertThat(plan.enforcement().osSandbox()).isFalse();
  }

  @Test
  void refusalNamesTheFirstGlobOfAnExplicitList() {
    SandboxPlan plan =
        acpPlan(WSL2, r -> r.denyWriteGlobs(DenyWriteGlobs.explicit(List.of("*.pem", "id_*"))));
    assertThat(plan.verdict().reason())
        .isEqualTo("bubblewrap cannot deny creating *.pem inside a writable mount");
  }

  @Test
  void linuxLaunchesWhenTheRulesExplicitlyDropTheGlobsAndSaysSo() {
    SandboxPlan plan = planner(LINUX).plan(overlay(Runner.ACP).denyWriteGlobs(NO_GLOBS).build());
    assertThat(plan.verdict()).isEqualTo(Verdict.allowed());
    assertThat(plan.effectiveBackend()).isEqualTo(SandboxBackend.NATIVE);
    assertThat(plan.enforcement().writeDenyGlobs()).isEmpty();
    assertThat(plan.enforcement().weakenings())
        .containsExactly(
            "denyWriteGlobs set by the rules to [], not the default secret files: what "
                + DenyWriteGlobs.DEFAULT_GLOBS.stream().filter(g -> !g.startsWith("!"))
                    .collect(java.util.stream.Collectors.joining(", "))
                + " names may be written inside writable mounts");
  }

  @Test
  void anExplicitListThatAddsAnExceptionIsReportedAsAWeakening() {
    List<String> withException = new java.util.ArrayList<>(DenyWriteGlobs.DEFAULT_GLOBS);
    withException.add("!server.pem");
    SandboxPlan plan =
        acpPlan(LINUX, r -> r.denyWriteGlobs(DenyWriteGlobs.explicit(withException)));
    assertThat(plan.enforcement().weakenings()).containsExactly("denyWriteGlobs set by the rules"
        + " to " + withException + ", not the default secret files: what !server.pem names may"
        + " be written inside writable mounts");
  }

  @Test
  void aDenyWriteGlobOutsideTheContentRulesLanguageIsRefused() {
    assertThatThrownBy(() -> DenyWriteGlobs.explicit(List.of("[ab].key")))
        .isInstanceOf(SandboxRequestException.class)
        .hasMessage("denyWriteGlobs[0] is not a file-name glob: unsupported character '[' in glob"
            + " [ab].key (only *, ? and ** are special)");
    assertThatThrownBy(() -> DenyWriteGlobs.explicit(List.of("!.env.example")))
        .isInstanceOf(SandboxRequestException.class)
        .hasMessage("denyWriteGlobs: '!.env.example' is an exception, and the list has no glob"
            + " for it to except from (add one, such as '.env.*')");
  }

  @Test
  void linuxLaunchesAReadOnlyRunWithNoWritableMountWhateverTheGlobs() {
    SandboxPlan review = planner(LINUX).plan(overlay(Runner.ACP).mode(Mode.REVIEW).build());
    assertThat(review.verdict()).isEqualTo(Verdict.allowed());
    assertThat(review.filesystem().writableRoots()).isEmpty();
    assertThat(review.enforcement().writeDenyGlobs()).isEqualTo(DenyWriteGlobs.DEFAULT_GLOBS);
    assertThat(review.enforcement().weakenings()).isEmpty();

    RunPaths withState =
        new RunPaths(
            workdir.toString(), configDir.toString(), null, null, List.of(),
            List.of(stateDir.toString()), List.of());
    SandboxPlan stateful =
        planner(LINUX)
            .plan(
                SandboxRequest.builder("s", "w", Runner.CLAUDE_CODE, withState)
                    .mode(Mode.REVIEW)
                    .build());
    assertThat(stateful.verdict().launch()).isEqualTo(Verdict.Launch.REFUSED);
  }

  // ---- protected paths written as patterns ----

  private SandboxPlan withProtected(ProbeResult probe, Mode mode, String... protectedPaths) {
    RunPaths paths =
        new RunPaths(
            workdir.toString(), configDir.toString(), reposDir.toString(), null,
            List.of(protectedPaths), List.of(), List.of());
    return planner(probe)
        .plan(
            SandboxRequest.builder("s", "w", Runner.ACP, paths)
                .mode(mode)
                .denyWriteGlobs(NO_GLOBS)
                .build());
  }

  @Test
  void linuxRefusesAProtectedPatternInsideAWritableMountWithItsWaysOut() {
    String glob = reposDir.resolve("*.bak").toString();
    SandboxPlan plan = withProtected(LINUX, Mode.CHAT, checkout.toString(), glob);
    assertThat(plan.verdict().launch()).isEqualTo(Verdict.Launch.REFUSED);
    assertThat(plan.verdict().reason())
        .isEqualTo("bubblewrap cannot protect " + glob + " inside the writable mount " + reposDir
            + ": it covers only paths that exist, never a pattern");
    assertThat(plan.verdict().waysOut())
        .containsExactly(
            "list the protected paths without * or ? (each one that exists is then covered"
                + " read-only), or keep the pattern outside every writable mount",
            SANDBOX_OFF);
    assertThat(plan.effectiveBackend()).isEqualTo(SandboxBackend.NONE);
  }

  @ParameterizedTest
  @CsvSource({
    "conv/agents/a1/work/*.bak",
    "conv/agents/*/work/secrets/x",
    "conv/agents/a?/work",
    "conv/**/x.key",
    "conv/repos/*/.git/config",
  })
  void aPatternThatCanMatchInsideAWritableMountIsRefused(String relative) {
    SandboxPlan plan =
        withProtected(WSL2, Mode.CHAT, root.resolve(relative).toString());
    assertThat(plan.verdict().launch()).isEqualTo(Verdict.Launch.REFUSED);
    assertThat(plan.verdict().reason()).startsWith("bubblewrap cannot protect ");
  }

  @Test
  void aPatternOutsideEveryWritableMountOrARunWithoutOneStillLaunches() {
    SandboxPlan outside =
        withProtected(LINUX, Mode.CHAT, root.resolve("home/u/src/*.git").toString(),
            root.resolve("conv/agents/a2/*").toString(), root.resolve("conv/agents/*").toString());
    assertThat(outside.verdict()).isEqualTo(Verdict.allowed());
    assertThat(outside.effectiveBackend()).isEqualTo(SandboxBackend.NATIVE);

    SandboxPlan review = withProtected(LINUX, Mode.REVIEW, reposDir.resolve("*.bak").toString());
    assertThat(review.verdict()).isEqualTo(Verdict.allowed());

    SandboxPlan mac = withProtected(MAC, Mode.CHAT, reposDir.resolve("*.bak").toString());
    assertThat(mac.verdict()).isEqualTo(Verdict.allowed());
  }

  @Test
  void macosEnforcesTheGlobDenies() {
    SandboxPlan plan = planner(MAC).plan(overlay(Runner.CLAUDE_CODE).build());
    assertThat(plan.verdict()).isEqualTo(Verdict.allowed());
    assertThat(plan.effectiveBackend()).isEqualTo(SandboxBackend.NATIVE);
    assertThat(plan.filesystem().writeDenyGlobs()).isEqualTo(DenyWriteGlobs.DEFAULT_GLOBS);
    assertThat(plan.enforcement().writeDenyGlobs()).isEqualTo(DenyWriteGlobs.DEFAULT_GLOBS);
    assertThat(plan.enforcement().weakenings()).isEmpty();
  }

  @Test
  void withoutABackendTheRunIsAllowedAndTheSummarySaysNoOsSandbox() {
    SandboxPlan plan = planner(LINUX_NO_SOCAT).plan(overlay(Runner.ACP).build());
    assertThat(plan.verdict()).isEqualTo(Verdict.allowed());
    assertThat(plan.effectiveBackend()).isEqualTo(SandboxBackend.NONE);
    assertThat(plan.probeNote()).isEqualTo("sudo apt-get install socat");
    Enforcement e = plan.enforcement();
    assertThat(e.osSandbox()).isFalse();
    assertThat(e.osSandboxNote())
        .isEqualTo("no OS-native agent sandbox on this host: sudo apt-get install socat");
    assertThat(e.networkAllowlist()).isFalse();
    assertThat(e.networkNote())
        .isEqualTo(
            "not enforced: without an OS sandbox the run reaches the network as the appliance's"
                + " user");
    assertThat(e.writeDenyGlobs()).isEmpty();
    assertThat(e.worktree() && e.readOnlyToken() && e.pushGateway() && e.commandPolicy()).isTrue();
    assertThat(e.weakenings()).isEmpty();
  }

  @Test
  void sandboxOffIsReportedAsAnExplicitWeakening() {
    SandboxPlan plan =
        planner(LINUX, SandboxSwitch.OFF, false).plan(overlay(Runner.HARNESS_BASH).build());
    assertThat(plan.verdict()).isEqualTo(Verdict.allowed());
    assertThat(plan.effectiveBackend()).isEqualTo(SandboxBackend.NONE);
    assertThat(plan.enforcement().osSandboxNote())
        .isEqualTo("agent sandbox DISABLED by the sandbox setting off (--sandbox, PUSHGATE_SANDBOX or the config file; pushgate config check says which)");
    assertThat(plan.enforcement().weakenings())
        .containsExactly("agent sandbox DISABLED by the sandbox setting off (--sandbox, PUSHGATE_SANDBOX or the config file; pushgate config check says which): no OS confinement");
  }

  @Test
  void wrappedRunReportsTheAllowlistOrTheNetworkOff() {
    SandboxPlan on = acpPlan(MAC, r -> r.egressAllowlist(List.of("*.example.com")));
    assertThat(on.enforcement().networkAllowlist()).isTrue();
    assertThat(on.enforcement().networkNote())
        .isEqualTo(
            "egress limited to " + on.egress().allowlist().size()
                + " allowlist entries (baseline, GitHub, 1 from egressAllowlist); the fixed deny"
                + " list wins");
    assertThat(on.egress().allows("a.example.com").allowed()).isTrue();
    assertThat(on.spec().egressAllowlist()).containsExactly("*.example.com");

    SandboxPlan off = acpPlan(MAC, r -> r.networkEnabled(false));
    assertThat(off.spec().networkEnabled()).isFalse();
    assertThat(off.egress().allowlist()).isEmpty();
    assertThat(off.egress().allows("github.com").allowed()).isFalse();
    assertThat(off.enforcement().networkNote())
        .isEqualTo("network off by the access-network rule: every outbound connection is refused");
  }

  // ---- environment ----

  @ParameterizedTest(name = "{0} on {1} -> sanitised={2}")
  @CsvSource({
    "CLAUDE_CODE,  MAC,            true",
    "CLAUDE_CODE,  LINUX_NO_SOCAT, false",
    "ACP,          LINUX_NO_SOCAT, true",
    "HARNESS_BASH, LINUX_NO_SOCAT, true",
    "ACP,          MAC,            true",
    "CLAUDE_CODE,  WINDOWS,        false",
  })
  void sanitisesTheEnvironmentExceptClaudeCodeWithoutASandbox(
      Runner runner, String host, boolean sanitised) {
    ProbeResult probe =
        Map.of("MAC", MAC, "LINUX_NO_SOCAT", LINUX_NO_SOCAT, "WINDOWS", WINDOWS).get(host);
    SandboxPlan plan =
        planner(probe)
            .plan(
                overlay(runner)
                    .envAdditions(
                        EnvironmentVariables.of(
                            Map.of("GH_TOKEN", "ghs_runToken", "GIT_CONFIG_GLOBAL", "/data/r1/gitconfig")))
                    .build());
    assertThat(plan.enforcement().environmentSanitised()).isEqualTo(sanitised);
    assertThat(plan.env().get("LD_PRELOAD")).isEqualTo(sanitised ? null : "/opt/inject.so");
    assertThat(plan.env().get("GH_TOKEN")).isEqualTo("ghs_runToken");
    assertThat(plan.env().get("GIT_CONFIG_GLOBAL")).isEqualTo("/data/r1/gitconfig");
    assertThat(plan.env().get("PATH")).isEqualTo("/usr/bin");
    assertThat(plan.enforcement().environmentNote())
        .isEqualTo(
            sanitised
                ? "sanitised: an allowlist (PATH, HOME, USER, SHELL, LANG, LC_*, TERM, TZ, TMPDIR,"
                    + " git's author and committer, the names the operator passes) and the run's"
                    + " own variables; everything else of the launcher's environment is dropped"
                : "inherited from the host: Claude Code without a sandbox runs through the"
                    + " no-sandbox adapter");
  }

  // ---- serialisation ----

  private static final EnvironmentVariables RUN_TOKEN =
      EnvironmentVariables.of(Map.of("GH_TOKEN", "ghs_runToken"));

  @Test
  void planSerialisesAsTheControlApisSandboxFieldAndRoundTrips() throws Exception {
    ObjectMapper json = new ObjectMapper();
    SandboxPlan plan = acpPlan(LINUX, r -> r.envAdditions(RUN_TOKEN));
    JsonNode tree = json.valueToTree(plan);
    assertThat(tree.get("effectiveBackend").asText()).isEqualTo("none");
    assertThat(tree.get("verdict").get("launch").asText()).isEqualTo("refused");
    assertThat(tree.get("verdict").get("reason").asText())
        .isEqualTo("bubblewrap cannot deny creating .env inside a writable mount");
    assertThat(tree.get("env").get("GH_TOKEN").asText()).isEqualTo("ghs_runToken");
    assertThat(tree.get("spec").get("sessionId").asText()).isEqualTo("space-1");
    assertThat(tree.get("egress").get("denylist").get(0).toString())
        .isEqualTo("{\"pattern\":\"169.254.169.254\",\"source\":\"deny-list\"}");
    assertThat(tree.get("enforcement").get("osSandbox").asBoolean()).isFalse();
    assertThat(tree.get("filesystem").get("writeDenyGlobs").toString())
        .isEqualTo(json.writeValueAsString(DenyWriteGlobs.DEFAULT_GLOBS));

    SandboxPlan back = json.readValue(json.writeValueAsString(plan), SandboxPlan.class);
    assertThat(back).isEqualTo(plan);
  }

  @Test
  void planToStringNeverShowsTheRunsToken() {
    SandboxPlan plan = acpPlan(MAC, r -> r.envAdditions(RUN_TOKEN));
    assertThat(plan.toString()).contains("GH_TOKEN").doesNotContain("ghs_runToken");
    assertThat(plan.toString()).doesNotContain("ghp_hostToken");
  }
}
