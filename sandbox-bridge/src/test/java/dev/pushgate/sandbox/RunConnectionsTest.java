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
    RunConnections held = new RunConnections(6);
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
    assertThat(held.admit(runA, new ByteArrayEndPoint())).isEqualTo(
        RunConnections.Admission.COUNTED);
  }
}
