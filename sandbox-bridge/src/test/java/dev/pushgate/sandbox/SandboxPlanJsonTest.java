package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A launcher reads the plan back from the control API's answer: it must survive JSON. */
class SandboxPlanJsonTest {
  private final ObjectMapper json = new ObjectMapper();

  @TempDir Path tmp;

  private SandboxPlan plan(DenyWriteGlobs globs) throws Exception {
    Path work = Files.createDirectories(tmp.resolve("work"));
    SandboxRequest request = SandboxRequest.builder("space-1", "ws-1", Runner.HARNESS_BASH,
            new RunPaths(work.toString(), null, null, null, List.of("/src/repo"),
                List.of(), List.of()))
        .denyWriteGlobs(globs).egressAllowlist(List.of("*.example.com"))
        .envAdditions(EnvironmentVariables.of(Map.of("GH_TOKEN", "ghs_x")))
        .build();
    return RealBwrap.planner(tmp.resolve("home"), Map.of("PATH", "/usr/bin"), SandboxSwitch.ON)
        .plan(request);
  }

  @Test
  void anAllowedPlanRoundTrips() throws Exception {
    SandboxPlan plan = plan(DenyWriteGlobs.explicit(List.of()));
    SandboxPlan back = json.readValue(json.writeValueAsString(plan), SandboxPlan.class);
    assertThat(back.spec()).isEqualTo(plan.spec());
    assertThat(back.verdict()).isEqualTo(plan.verdict());
    assertThat(back.env()).isEqualTo(plan.env());
    assertThat(back.filesystem()).isEqualTo(plan.filesystem());
    assertThat(back.enforcement()).isEqualTo(plan.enforcement());
    assertThat(back.effectiveBackend()).isEqualTo(SandboxBackend.NATIVE);
    assertThat(back.egress().allowlist()).isEqualTo(plan.egress().allowlist());
    assertThat(back.egress().allows("a.example.com").allowed()).isTrue();
    assertThat(back.egress().allows("169.254.169.254").allowed()).isFalse();
  }

  @Test
  void aRefusedPlanRoundTripsWithItsWaysOut() throws Exception {
    SandboxPlan plan = plan(DenyWriteGlobs.DEFAULT);
    SandboxPlan back = json.readValue(json.writeValueAsString(plan), SandboxPlan.class);
    assertThat(back.verdict().launches()).isFalse();
    assertThat(back.verdict()).isEqualTo(plan.verdict());
    assertThat(back.effectiveBackend()).isEqualTo(SandboxBackend.NONE);
  }
}
