package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.testkit.RunningAppliance;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The start-up line of a switched-off sandbox names the one place the setting came from, never a
 * place it may not have come from (the container image sets the environment, not the flag).
 */
class SandboxOffLineTest {
  @TempDir Path tmp;

  @Test
  void theFlagIsNamedWhenTheFlagSwitchedItOff() throws Exception {
    try (RunningAppliance app = RunningAppliance.on(tmp.resolve("flag"))
        .serve(List.of("--sandbox", "off")).start()) {
      assertThat(app.logText()).contains("agent sandbox DISABLED by --sandbox off\n")
          .doesNotContain("PUSHGATE_SANDBOX");
    }
  }

  @Test
  void theVariableIsNamedWhenTheEnvironmentSwitchedItOff() throws Exception {
    try (RunningAppliance app = RunningAppliance.on(tmp.resolve("env"))
        .env(Map.of("PUSHGATE_SANDBOX", "off")).start()) {
      assertThat(app.logText()).contains("agent sandbox DISABLED by PUSHGATE_SANDBOX=off\n")
          .doesNotContain("--sandbox");
    }
  }

  @Test
  void theFileIsNamedWhenTheConfigurationFileSwitchedItOff() throws Exception {
    // Quoted: YAML reads a bare off as false, which is refused saying so.
    Path config = Files.writeString(tmp.resolve("pushgate.yaml"), "sandbox: \"off\"\n");
    try (RunningAppliance app = RunningAppliance.on(tmp.resolve("file"))
        .serve(List.of("--config", config.toString())).start()) {
      assertThat(app.logText())
          .contains("agent sandbox DISABLED by sandbox: off in " + config + "\n");
    }
  }
}
