package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import org.eclipse.jetty.io.ByteArrayEndPoint;
import org.eclipse.jetty.io.EndPoint;
import org.junit.jupiter.api.Test;

/**
 * The bounds of {@link RunConnections} for all runs together: the shared proxy's per-run bound
 * ({@code LoopbackProxyDeadlineTest}) times many runs would still exceed the appliance's
 * descriptors.
 */
class RunConnectionsTest {
  private final InetSocketAddress nowhere =
      new InetSocketAddress(InetAddress.getLoopbackAddress(), 9);
  private final ApiInterception runA = new ApiInterception(List.of("api.github.com"), nowhere, "a");
  private final ApiInterception runB = new ApiInterception(List.of("api.github.com"), nowhere, "b");

  @Test
  void allRunsTogetherHoldAtMostTheBoundAndAClosedEndMakesRoom() {
    RunConnections held = new RunConnections(8); // 6 for a run that holds some
    EndPoint a1 = new ByteArrayEndPoint();
    EndPoint a2 = new ByteArrayEndPoint();
    assertThat(held.admit(runA, a1)).isEqualTo(RunConnections.Admission.COUNTED);
    held.farEnd(runA, new ByteArrayEndPoint());
    assertThat(held.admit(runA, a2)).isEqualTo(RunConnections.Admission.COUNTED);
    held.farEnd(runA, new ByteArrayEndPoint());
    assertThat(held.admit(runA, a1)).as("counted already").isEqualTo(
        RunConnections.Admission.COUNTED);

    EndPoint b1 = new ByteArrayEndPoint();
    assertThat(held.admit(runB, b1)).isEqualTo(RunConnections.Admission.COUNTED);
    EndPoint b2 = new ByteArrayEndPoint();
    assertThat(held.admit(runB, b2)).isEqualTo(RunConnections.Admission.PROXY_FULL);
    assertThat(RunConnections.Admission.PROXY_FULL.status).isEqualTo(503);
    assertThat(RunConnections.Admission.PROXY_FULL.refusal)
        .contains("the proxy holds the most connections it may for all runs together");

    a1.close(); // another run's closed end makes room
    assertThat(held.admit(runB, b2)).isEqualTo(RunConnections.Admission.COUNTED);

    held.close(runA);
    assertThat(held.open(runA)).isZero();
    assertThat(held.admit(runB, new ByteArrayEndPoint())).isEqualTo(
        RunConnections.Admission.COUNTED);
  }

  @Test
  void theForwardsConnectionsOnwardCountAmongAllRuns() {
    RunConnections held = new RunConnections(4);
    var onward = held.forwardedConnections();
    org.eclipse.jetty.io.Connection c1 = null;
    org.eclipse.jetty.io.Connection c2 = null;
    onward.onOpened(c1);
    onward.onOpened(c2);
    assertThat(held.admit(runA, new ByteArrayEndPoint())).isEqualTo(
        RunConnections.Admission.COUNTED);
    assertThat(held.admit(runA, new ByteArrayEndPoint())).isEqualTo(
        RunConnections.Admission.PROXY_FULL);
    onward.onClosed(c1);
    assertThat(held.admit(runB, new ByteArrayEndPoint())).isEqualTo(
        RunConnections.Admission.COUNTED);
  }

  /**
   * Finding (attack of 2026-12-07): two runs holding their 256 tunnels each filled the bound of
   * all runs, and every other run's next connection was refused. The last quarter of the bound
   * goes only to a run that holds no connection yet.
   */
  @Test
  void theLastQuarterGoesToRunsThatHoldNone() {
    RunConnections held = new RunConnections(16); // a quarter: 4 ends
    for (int i = 0; i < 6; i++) { // 6 tunnels, 12 ends: the bound less its quarter
      assertThat(held.admit(runA, new ByteArrayEndPoint())).isEqualTo(
          RunConnections.Admission.COUNTED);
      held.farEnd(runA, new ByteArrayEndPoint());
    }
    assertThat(held.admit(runA, new ByteArrayEndPoint())).as("a run that holds some")
        .isEqualTo(RunConnections.Admission.PROXY_FULL);
    assertThat(held.admit(runB, new ByteArrayEndPoint())).as("a run that holds none")
        .isEqualTo(RunConnections.Admission.COUNTED);
    held.farEnd(runB, new ByteArrayEndPoint());
    assertThat(held.admit(runB, new ByteArrayEndPoint())).isEqualTo(
        RunConnections.Admission.PROXY_FULL);
  }
}
