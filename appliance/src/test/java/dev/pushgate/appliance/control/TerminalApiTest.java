package dev.pushgate.appliance.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pushgate.appliance.runs.RunRequestException;
import dev.pushgate.sandbox.MicroVmStatus;
import dev.pushgate.sandbox.Platform;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code POST /v1/terminals}: its strict body and its refusals; the profile is TerminalProfile's. */
class TerminalApiTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;

  private TerminalApi api(Platform platform, String path) {
    return new TerminalApi(JSON, platform, Map.of("HOME", tmp.toString(), "PATH", path,
        "GH_TOKEN", "ghp_not_for_terminals", "PUSHGATE_DATABASE_URL", "postgresql://x"),
        MicroVmStatus.unavailable("/dev/kvm-hidden does not exist: this host offers no KVM"));
  }

  private TerminalApi.Answer open(TerminalApi api, String body) throws Exception {
    return api.open(JSON.readTree(body));
  }

  @Test
  void anUnsupportedPlatformIsA422WithTheReasonAndNoCommand() throws Exception {
    Path work = Files.createDirectories(tmp.resolve("work"));
    for (Platform p : new Platform[] {Platform.WINDOWS, Platform.OTHER, Platform.MACOS}) {
      TerminalApi.Answer a = open(api(p, "/usr/bin:/bin"), "{\"workdir\":\"" + work + "\"}");
      assertThat(a.status()).isEqualTo(422);
      assertThat(a.body().path("error").asText()).contains("Linux and WSL2 (bubblewrap) only");
      assertThat(a.body().path("backend").asText()).isEqualTo("none");
      assertThat(a.body().has("argv")).isFalse();
    }
  }

  @Test
  void anExplicitMicroVmOnAHostThatCannotBootOneIsA422WithTheProbesReasonAndNoCommand()
      throws Exception {
    Path work = Files.createDirectories(tmp.resolve("work"));
    TerminalApi.Answer a = open(api(Platform.LINUX, "/usr/bin:/bin"),
        "{\"workdir\":\"" + work + "\", \"backend\": \"microvm\"}");
    assertThat(a.status()).isEqualTo(422);
    assertThat(a.body().path("error").asText()).isEqualTo("microvm terminal requested, but the"
        + " microvm backend is unavailable: /dev/kvm-hidden does not exist: this host offers no KVM."
        + " No terminal was opened on the host instead");
    assertThat(a.body().path("backend").asText()).isEqualTo("none");
    assertThat(a.body().has("argv")).isFalse();
  }

  @Test
  void aMissingWorkdirIsA422NotAHostShell() throws Exception {
    TerminalApi.Answer a = open(api(Platform.LINUX, "/usr/bin:/bin"),
        "{\"workdir\":\"" + tmp.resolve("missing") + "\"}");
    assertThat(a.status()).isEqualTo(422);
    assertThat(a.body().path("error").asText()).contains("does not exist");
  }

  @Test
  void malformedBodiesAre400sNamingTheField() {
    TerminalApi api = api(Platform.LINUX, "/usr/bin:/bin");
    String[][] cases = {
        {"[]", "JSON object"},
        {"{}", "workdir is required"},
        {"{\"workdir\": 3}", "workdir must be a string"},
        {"{\"workdir\": \"relative/dir\"}", "absolute path"},
        {"{\"workdir\": \"/tmp\\u0000x\"}", "without NUL"},
        {"{\"workdir\": \"/tmp\", \"shell\": \"bash\"}", "shell must be an absolute path"},
        {"{\"workdir\": \"/tmp\", \"env\": {\"GH_TOKEN\": \"x\"}}", "unknown field \"env\""},
        {"{\"workdir\": \"/tmp\", \"backend\": \"none\"}", "backend none is not offered"},
        {"{\"workdir\": \"/tmp\", \"backend\": \"vmware\"}", "unknown sandbox backend: vmware"},
        {"{\"workdir\": \"/tmp\", \"backend\": 1}", "backend must be a string"},
        {"{\"workdir\": \"/" + "a".repeat(5000) + "\"}", "at most 4096"},
    };
    for (String[] c : cases) {
      assertThatThrownBy(() -> open(api, c[0])).as(c[0])
          .isInstanceOf(RunRequestException.class).hasMessageContaining(c[1]);
    }
  }

  @Test
  void onAHostWithBwrapTheAnswerIsTheProfilesCommandAndEnvironment() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/bwrap"))
        || "1".equals(System.getenv("SANDBOX_REQUIRE_BWRAP")), "bwrap is not installed");
    Path home = tmp.toRealPath();
    Files.createDirectories(home.resolve(".ssh"));
    Path work = Files.createDirectories(home.resolve("work"));
    TerminalApi.Answer a = open(api(Platform.LINUX, "/usr/bin:/bin"),
        "{\"workdir\":\"" + work + "\",\"shell\":\"/bin/sh\"}");
    assertThat(a.status()).as(a.body().toString()).isEqualTo(200);
    assertThat(a.body().path("backend").asText()).isEqualTo("native");
    assertThat(a.body().path("argv").get(0).asText()).endsWith("/bwrap");
    assertThat(a.body().path("argv").toString()).contains(home.resolve(".ssh").toString())
        .contains("--new-session");
    assertThat(a.body().path("env").path("HOME").asText()).isEqualTo(home.toString());
    assertThat(a.body().toString()).doesNotContain("ghp_not_for_terminals")
        .doesNotContain("postgresql://x");
    assertThat(a.body().path("resize").path("process").asText()).endsWith("/script");
    assertThat(a.body().path("deniedPaths").toString()).contains(home.resolve(".ssh").toString());
  }
}
