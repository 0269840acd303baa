package dev.pushgate.http;

import dev.pushgate.types.UnnamedConnections;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Connector;

/**
 * {@link UnnamedConnections} at a Jetty listener's accept: the one place a listener shared by
 * every run counts a connection, schedules its deadline on the connector's scheduler, and closes
 * the oldest unnamed one (logging it at the rate the rule allows) when too many have not named
 * a run. The API boundary's PROXY header reader and the egress proxy's HTTP both accept through
 * it.
 */
public final class UnnamedAtAccept {
  private final UnnamedConnections unnamed = new UnnamedConnections();
  private final String listener;
  private final Consumer<String> warn;
  private final UnnamedConnections.Timer timer;

  /**
   * @param listener the listener as its refusal line names it ({@code loopback proxy})
   * @param warn where that line goes (the listener's logger)
   */
  public UnnamedAtAccept(String listener, Consumer<String> warn) {
    this(listener, warn, null);
  }

  /** As the public constructor, with the deadlines on {@code timer} (a test's) if not null. */
  UnnamedAtAccept(String listener, Consumer<String> warn, UnnamedConnections.Timer timer) {
    this.listener = listener;
    this.warn = warn;
    this.timer = timer;
  }

  /**
   * The connection for {@code endPoint}, just accepted: {@code served}'s, counted; when {@link
   * UnnamedConnections#MAX} have not named a run yet, the oldest of them is closed to make room
   * (logged at the rate the rule allows), and only if none can be is this one a {@link
   * ClosedAtOnce}. A counted connection that closes before it named its run stops counting then,
   * not at its deadline: a client that connects and leaves, hundreds of times a second, would
   * otherwise keep the bound full (attack of 2026-12-07).
   */
  public Connection accept(Connector connector, EndPoint endPoint, Supplier<Connection> served) {
    UnnamedConnections.Timer deadlines = timer != null ? timer : (delay, task) -> connector
        .getScheduler().schedule(task, delay.toMillis(), TimeUnit.MILLISECONDS);
    UnnamedConnections.Admission admission = unnamed.admit(endPoint, endPoint::close, deadlines);
    if (admission != UnnamedConnections.Admission.COUNTED) {
      long closed = unnamed.refusalToLog();
      if (closed > 0) {
        warn.accept(UnnamedConnections.closedToMakeRoom(listener, closed,
            endPoint.getRemoteSocketAddress()));
      }
      if (admission == UnnamedConnections.Admission.REFUSED) {
        return new ClosedAtOnce(endPoint, connector);
      }
    }
    Connection connection = served.get();
    connection.addEventListener(new Connection.Listener() {
      @Override
      public void onClosed(Connection closed) {
        // Named already when the connection was handed on (a tunnel, a run's TLS): a no-op.
        unnamed.named(endPoint);
      }
    });
    return connection;
  }

  /**
   * The connection accepted as {@code accepted} has said whose it is, or been refused for what
   * it said: no longer counted, no deadline.
   */
  public void named(EndPoint accepted) {
    unnamed.named(accepted);
  }

  /** Connections held now that have not named a run. */
  public int open() {
    return unnamed.open();
  }

  /** Whether a refusal that names no run should be logged now, and for how many. */
  public long refusalToLog() {
    return unnamed.refusalToLog();
  }
}
