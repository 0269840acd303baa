package dev.pushgate.appliance.runs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.policy.Boundary;
import org.junit.jupiter.api.Test;

class RunBoundaryTest {
  /**
   * Issue 28: a chat run without a sandbox had no boundary in force, so the gateway and the API
   * boundary applied no ask, and a push or API write the hook could not see (a script, an alias,
   * curl) landed with no question. They are on every push's and call's path with or without an
   * OS sandbox.
   */
  @Test
  void everyRunsPushesAreJudgedAtTheGatewaySandboxOrNot() {
    assertThat(RunBoundary.inForce(false)).containsExactly(Boundary.GIT_PUSH);
    assertThat(RunBoundary.inForce()).contains(Boundary.GIT_PUSH);
  }

  @Test
  void theApiBoundaryIsInForceOnceItIsTurnedOn() {
    assertThat(RunBoundary.inForce(true)).containsExactly(Boundary.GIT_PUSH, Boundary.GITHUB_API);
  }
}
