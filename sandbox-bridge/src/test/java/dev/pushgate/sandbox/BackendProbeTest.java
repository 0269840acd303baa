package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BackendProbeTest {

  @ParameterizedTest(name = "{0} with [{1}]")
  @CsvSource(
      delimiter = '|',
      nullValues = "-",
      value = {
        "MACOS   | -          | true  | sandbox-exec | Seatbelt — namespace-level isolation, no kernel boundary   | false | -                  | -",
        "LINUX   | bwrap socat | true | bwrap        | bubblewrap — namespace-level isolation, no kernel boundary | false | -                  | -",
        "WSL2    | bwrap socat | true | bwrap        | bubblewrap — namespace-level isolation, no kernel boundary | false | -                  | -",
        "LINUX   | bwrap      | false | -            | -  | true  | socat              | sudo apt-get install socat",
        "LINUX   | socat      | false | -            | -  | true  | bubblewrap         | sudo apt-get install bubblewrap",
        "LINUX   | -          | false | -            | -  | true  | bubblewrap socat   | sudo apt-get install bubblewrap socat",
        "WSL2    | socat      | false | -            | -  | true  | bubblewrap         | sudo apt-get install bubblewrap",
        "WINDOWS | bwrap socat | false | -           | -  | false | -                  | native sandbox is not offered on this platform",
        "OTHER   | bwrap socat | false | -           | -  | false | -                  | native sandbox is not offered on this platform",
      })
  void probesEveryHostRow(
      Platform platform,
      String onPath,
      boolean available,
      String tool,
      String note,
      boolean requiresInstall,
      String missing,
      String hint) {
    Set<String> tools = onPath == null ? Set.of() : Set.of(onPath.split(" "));
    ProbeResult r = BackendProbe.probe(platform, tools::contains);
    assertThat(r.platform()).isEqualTo(platform);
    assertThat(r.available()).isEqualTo(available);
    assertThat(r.tool()).isEqualTo(tool);
    assertThat(r.note()).isEqualTo(note);
    assertThat(r.requiresInstall()).isEqualTo(requiresInstall);
    assertThat(r.missingPackages())
        .isEqualTo(missing == null ? List.of() : List.of(missing.split(" ")));
    assertThat(r.hint()).isEqualTo(hint);
  }

  @Test
  void startupLineSaysOnWithTheNote() {
    ProbeResult r = BackendProbe.probe(Platform.LINUX, Set.of("bwrap", "socat")::contains);
    assertThat(r.startupLine(SandboxSwitch.ON))
        .isEqualTo("agent sandbox ON: bubblewrap — namespace-level isolation, no kernel boundary");
  }

  @Test
  void startupLineSaysNoSandboxWithTheHint() {
    ProbeResult r = BackendProbe.probe(Platform.LINUX, Set.of("bwrap")::contains);
    assertThat(r.startupLine(SandboxSwitch.ON))
        .isEqualTo("no OS-native agent sandbox on this host: sudo apt-get install socat");
    ProbeResult w = BackendProbe.probe(Platform.WINDOWS, name -> true);
    assertThat(w.startupLine(SandboxSwitch.ON))
        .isEqualTo(
            "no OS-native agent sandbox on this host: native sandbox is not offered on this platform");
  }

  @Test
  void startupLineSaysDisabledWhateverTheHost() {
    for (Platform p : Platform.values()) {
      assertThat(BackendProbe.probe(p, name -> true).startupLine(SandboxSwitch.OFF))
          .isEqualTo("agent sandbox DISABLED by the sandbox setting off (--sandbox, PUSHGATE_SANDBOX or the config file; pushgate config check says which)");
    }
  }

  @Test
  void anUnquotedOffInTheConfigurationFileIsRefusedSayingHowToWriteIt() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> SandboxSwitch.resolve("false", null))
        .hasMessage("--sandbox takes on or off, not: false (in a YAML configuration file an"
            + " unquoted on or off is read as true or false: write sandbox: \"off\")");
  }

  @Test
  void startupLineNamesWhereTheSettingCameFromWhenKnown() {
    ProbeResult r = BackendProbe.probe(Platform.LINUX, name -> true);
    assertThat(r.startupLine(SandboxSwitch.OFF, "PUSHGATE_SANDBOX=off"))
        .isEqualTo("agent sandbox DISABLED by PUSHGATE_SANDBOX=off");
    assertThat(r.startupLine(SandboxSwitch.OFF, null)).isEqualTo(SandboxSwitch.DISABLED);
    assertThat(r.startupLine(SandboxSwitch.ON, "--sandbox on")).startsWith("agent sandbox ON: ");
  }

  @ParameterizedTest(name = "{0} / {1} -> {2}")
  @CsvSource(
      delimiter = '|',
      nullValues = "-",
      value = {
        "Mac OS X   | -                                       | MACOS",
        "Darwin     | -                                       | MACOS",
        "Linux      | 6.8.0-45-generic                        | LINUX",
        "Linux      | 5.15.153.1-microsoft-standard-WSL2      | WSL2",
        "Linux      | -                                       | LINUX",
        "Windows 11 | -                                       | WINDOWS",
        "FreeBSD    | -                                       | OTHER",
        "-          | -                                       | OTHER",
      })
  void detectsPlatform(String osName, String release, Platform expected) {
    assertThat(Platform.detect(osName, release)).isEqualTo(expected);
  }

  @Test
  void searchesPathForExecutableFilesOnly(@TempDir Path dir) throws IOException {
    Path bin = Files.createDirectory(dir.resolve("bin"));
    Path other = Files.createDirectory(dir.resolve("other"));
    Path bwrap = Files.createFile(bin.resolve("bwrap"));
    Files.setPosixFilePermissions(bwrap, PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.createFile(other.resolve("socat")); // present but not executable
    Files.createDirectory(other.resolve("rg")); // a directory is not a command

    Executables search = Executables.searching("::relative/dir:" + bin + ":" + other);
    assertThat(search.onPath("bwrap")).isTrue();
    assertThat(search.onPath("socat")).isFalse();
    assertThat(search.onPath("rg")).isFalse();
    assertThat(search.onPath("missing")).isFalse();
    assertThat(search.onPath("../bin/bwrap")).isFalse();
    assertThat(search.onPath("")).isFalse();

    ProbeResult r = BackendProbe.probe(Platform.LINUX, search);
    assertThat(r.hint()).isEqualTo("sudo apt-get install socat");

    Path socat = other.resolve("socat");
    Files.setPosixFilePermissions(socat, PosixFilePermissions.fromString("rwxr-xr-x"));
    assertThat(BackendProbe.probe(Platform.LINUX, search).available()).isTrue();
    assertThat(Executables.searching(null).onPath("bwrap")).isFalse();
  }

  @Test
  void probeResultRefusesInconsistentFields() {
    assertThatThrownBy(
            () -> new ProbeResult(Platform.LINUX, true, null, "n", false, List.of(), null))
        .hasMessage(
            "an available backend has a tool and a note, and no hint or install requirement");
    assertThatThrownBy(
            () -> new ProbeResult(Platform.LINUX, false, null, null, true, List.of(), "h"))
        .hasMessage("requiresInstall exactly when packages are missing");
    assertThatThrownBy(
            () -> new ProbeResult(Platform.LINUX, false, null, null, false, List.of(), null))
        .hasMessage("an unavailable backend has a hint and no tool or note");
  }

  @ParameterizedTest(name = "flag={0} env={1} -> {2}")
  @CsvSource(
      delimiter = '|',
      nullValues = "-",
      value = {
        "-    | -     | ON",
        "-    | ''    | ON",
        "on   | -     | ON",
        "off  | -     | OFF",
        "OFF  | -     | OFF",
        "' on ' | -   | ON",
        "-    | off   | OFF",
        "-    | on    | ON",
        "on   | off   | ON",
        "off  | on    | OFF",
      })
  void resolvesTheSwitchFlagBeforeEnvironment(String flag, String env, SandboxSwitch expected) {
    assertThat(SandboxSwitch.resolve(flag, env)).isEqualTo(expected);
  }

  @Test
  void refusesASwitchValueOtherThanOnOrOff() {
    assertThatThrownBy(() -> SandboxSwitch.resolve("maybe", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--sandbox takes on or off, not: maybe");
    assertThatThrownBy(() -> SandboxSwitch.resolve(null, "true"))
        .hasMessage("CC_SERVER_SANDBOX takes on or off, not: true");
    assertThatThrownBy(() -> SandboxSwitch.resolve("", null))
        .hasMessage("--sandbox takes on or off, not: \"\"");
    assertThatThrownBy(() -> SandboxSwitch.resolve("maybe", "on"))
        .hasMessage("--sandbox takes on or off, not: maybe");
  }
}
