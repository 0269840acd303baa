package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.testkit.Cli;
import dev.pushgate.testkit.ControlClient;
import dev.pushgate.testkit.RunningAppliance;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An explicit {@code microvm} on a host that cannot boot one, with KVM hidden ({@code
 * --microvm-kvm} names a device that does not exist): the start-up line and {@code /readyz} say
 * so, and a run, a terminal and {@code pushgate shell} that ask for it are refused with the
 * reason; nothing is created and nothing runs on the host instead.
 */
class MicroVmRefusalTest {
  @TempDir Path tmp;

  @Test
  void anExplicitMicroVmWithKvmHiddenIsRefusedWithTheReasonEverywhere() throws Exception {
    Path root = tmp.toRealPath();
    Path hidden = root.resolve("no-kvm");
    Path work = Files.createDirectories(root.resolve("work"));
    String reason = hidden + " does not exist: this host offers no KVM";
    try (RunningAppliance app = RunningAppliance.on(root.resolve("data"))
        .serve(List.of("--microvm-kvm", hidden.toString())).start()) {
      app.forgeCreate("acme/widget");
      assertThat(app.logText()).contains("\nmicrovm unavailable: " + reason);
      HttpResponse<String> ready = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create(app.base() + "/readyz")).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(ready.statusCode()).as("an optional backend is no readiness check")
          .isEqualTo(200);
      assertThat(ready.body()).contains("\"microvm\":\"microvm unavailable: " + reason);

      ControlClient.Answer run = app.control().post("/v1/runs", "{\"workspaceId\": \"ws-1\","
          + " \"repository\": \"acme/widget\", \"workdir\": \"" + work + "\", \"runner\":"
          + " \"harness-bash\", \"backend\": \"microvm\"}");
      assertThat(run.status()).as(run.raw()).isEqualTo(422);
      assertThat(run.body().path("error").asText()).isEqualTo("not launched: microvm sandbox"
          + " requested, but the microvm backend is unavailable: " + reason + " (enable"
          + " virtualisation, or nested virtualisation in a VM, and load kvm_intel or kvm_amd)");
      assertThat(run.body().path("sandbox").path("effectiveBackend").asText()).isEqualTo("none");
      assertThat(app.control().get("/v1/runs").raw()).doesNotContain("run_");

      ControlClient.Answer terminal = app.control().post("/v1/terminals",
          "{\"workdir\": \"" + work + "\", \"backend\": \"microvm\"}");
      assertThat(terminal.status()).as(terminal.raw()).isEqualTo(422);
      assertThat(terminal.body().path("error").asText()).startsWith("microvm terminal"
          + " requested, but the microvm backend is unavailable: " + reason);
      assertThat(terminal.body().path("backend").asText()).isEqualTo("none");
      assertThat(terminal.body().has("argv")).isFalse();
    }

    // Nothing on its standard input: a shell that started would end at once.
    Cli.Result shell = Cli.of("shell", "--backend", "microvm", "--microvm-kvm", hidden.toString(),
        "--workdir", work.toString()).run();
    String out = shell.out();
    assertThat(shell.exit()).as(out).isEqualTo(125);
    assertThat(out).contains("pushgate: microvm terminal requested, but the microvm backend is"
        + " unavailable: " + reason).contains("No shell was started on the host instead");
  }
}
