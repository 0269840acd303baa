package dev.pushgate.appliance.runs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.policy.Boundary;
import org.junit.jupiter.api.Test;

class RunBoundaryTest {
  @Test
  void aSandboxedRunsPushesAreJudgedAtTheGateway() {
    assertThat(RunBoundary.forBackend("native", false)).containsExactly(Boundary.GIT_PUSH);
    assertThat(RunBoundary.forBackend("microvm", false)).containsExactly(Boundary.GIT_PUSH);
    assertThat(RunBoundary.forBackend("native")).contains(Boundary.GIT_PUSH);
  }

  @Test
  void aRunWithoutAnOsSandboxHasNoBoundaryInForce() {
    assertThat(RunBoundary.forBackend("none")).isEmpty();
    assertThat(RunBoundary.forBackend(null)).as("backend not yet known").isEmpty();
    assertThat(RunBoundary.forBackend("none", true)).isEmpty();
  }

  @Test
  void theApiBoundaryIsInForceForSandboxedRunsOnceItIsTurnedOn() {
    assertThat(RunBoundary.forBackend("native", true))
        .containsExactly(Boundary.GIT_PUSH, Boundary.GITHUB_API);
  }
}
