package dev.pushgate.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.types.UnnamedConnections;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.LocalConnector;
import org.eclipse.jetty.server.Server;
import org.junit.jupiter.api.Test;

class UnnamedAtAcceptTest {
  /**
   * Findings (attacks of 2026-12-07): connections opened and closed at once, without a login,
   * kept the bound full until each one's deadline, and every run's next connection was closed at
   * accept meanwhile; then idle ones, reopened as they were closed, did the same. Over the bound
   * the oldest is closed for the newest. Here the deadlines never come: only the closes can free
   * the count.
   */
  @Test
  void aConnectionThatClosesBeforeNamingItsRunStopsCountingAtItsClose() throws Exception {
    List<Runnable> deadlines = new ArrayList<>();
    UnnamedAtAccept unnamed = new UnnamedAtAccept("test listener", line -> { },
        (delay, task) -> deadlines.add(task));
    Server server = new Server();
    LocalConnector connector = new LocalConnector(server, new HttpConnectionFactory() {
      @Override
      public Connection newConnection(Connector c, EndPoint e) {
        return unnamed.accept(c, e, () -> super.newConnection(c, e));
      }
    });
    server.addConnector(connector);
    server.start();
    try {
      List<LocalConnector.LocalEndPoint> open = new ArrayList<>();
      for (int i = 0; i < UnnamedConnections.MAX; i++) {
        open.add(connector.connect());
      }
      until(() -> unnamed.open() == UnnamedConnections.MAX); // accepted by the acceptor thread
      LocalConnector.LocalEndPoint over = connector.connect();
      until(() -> over.getConnection() != null);
      assertThat(over.getConnection()).as("the newest").isNotInstanceOf(ClosedAtOnce.class);
      assertThat(open.get(0).isOpen()).as("the oldest, closed to make room").isFalse();
      assertThat(open.get(1).isOpen()).isTrue();
      assertThat(unnamed.open()).isEqualTo(UnnamedConnections.MAX);
      over.close();

      open.forEach(LocalConnector.LocalEndPoint::close);
      until(() -> unnamed.open() == 0);
      assertThat(deadlines).hasSize(UnnamedConnections.MAX + 1); // none has run
      LocalConnector.LocalEndPoint next = connector.connect();
      until(() -> next.getConnection() != null);
      assertThat(next.getConnection()).isNotInstanceOf(ClosedAtOnce.class);
    } finally {
      server.stop();
    }
  }

  private static void until(java.util.function.BooleanSupplier condition) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(condition.getAsBoolean()).as("within 30 s").isTrue();
  }
}
