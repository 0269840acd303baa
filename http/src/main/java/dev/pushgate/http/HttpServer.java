package dev.pushgate.http;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.unixdomain.server.UnixDomainServerConnector;
import org.eclipse.jetty.util.component.LifeCycle;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ThreadPool;

/**
 * The one way pushgate sets up an embedded Jetty server: a pool of threads named for what the
 * server is (so that a thread dump says whose a thread is), bounded both ways, and the connectors
 * each caller adds, on a loopback or configured port or on a Unix socket, with their idle timeout
 * and the connection factories the caller chains (PROXY protocol, TLS, HTTP). What differs between
 * the servers is what the caller passes; how a server is built is here once, its fallback error
 * page too ({@link FixedErrorPages}).
 *
 * <pre>{@code
 * Server server = HttpServer.named("pushgate-api").threads(64, 2).stopTimeout(ONE_SECOND).build();
 * ServerConnector tcp = HttpServer.tcp(server, "127.0.0.1", 0, null, proxy, tls, http);
 * HttpServer.start(server, "the GitHub API boundary");
 * }</pre>
 */
public final class HttpServer {
  private final String threadName;
  private int maxThreads = 200;
  private int minThreads = 8;
  private Duration stopTimeout;

  private HttpServer(String threadName) {
    this.threadName = threadName;
  }

  /** A server whose threads are named {@code threadName} ({@code pushgate-http}). */
  public static HttpServer named(String threadName) {
    if (threadName == null || !threadName.startsWith("pushgate-")) {
      throw new IllegalArgumentException("a server's threads are named pushgate-…: " + threadName);
    }
    return new HttpServer(threadName);
  }

  /** At most {@code max} request threads, {@code min} kept while idle. */
  public HttpServer threads(int max, int min) {
    if (min < 1 || max < min) {
      throw new IllegalArgumentException("threads want 1 <= min <= max: " + min + ", " + max);
    }
    this.maxThreads = max;
    this.minThreads = min;
    return this;
  }

  /** How long a stop waits for requests in progress (Jetty's default when not set). */
  public HttpServer stopTimeout(Duration grace) {
    this.stopTimeout = grace;
    return this;
  }

  public Server build() {
    QueuedThreadPool threads = new QueuedThreadPool(maxThreads, minThreads);
    threads.setName(threadName);
    return configured(new Server(threads));
  }

  /**
   * As {@link #build()}, on the threads of another server, started already, which start and stop
   * with that one: for a server that hands connections over to the other ({@code
   * ApiBoundary.takeOver}), whose work on them then runs on the pool sized for it.
   */
  public Server buildOn(ThreadPool started) {
    if (!(started instanceof LifeCycle l) || !l.isStarted()) {
      throw new IllegalArgumentException("a server shares the threads of a started one");
    }
    Server server = new Server(started);
    server.unmanage(started);
    return configured(server);
  }

  private Server configured(Server server) {
    // Jetty's own page echoes the exception's message and the URI (FixedErrorPages says why).
    server.setErrorHandler(new FixedErrorPages());
    if (stopTimeout != null) {
      server.setStopTimeout(stopTimeout.toMillis());
    }
    return server;
  }

  /**
   * A connector on {@code host}:{@code port} ({@code 0} for an ephemeral one), added to {@code
   * server}. With no {@code factories}, plain HTTP/1.1; otherwise the chain given, outermost first,
   * on one acceptor and one selector (a server that chains them serves one loopback client).
   *
   * @param idleTimeout how long a connection may say nothing; null for Jetty's default
   */
  public static ServerConnector tcp(Server server, String host, int port, Duration idleTimeout,
      ConnectionFactory... factories) {
    ServerConnector connector = factories.length == 0
        ? new ServerConnector(server)
        : new ServerConnector(server, 1, 1, factories);
    connector.setHost(host);
    connector.setPort(port);
    idle(connector, idleTimeout);
    server.addConnector(connector);
    return connector;
  }

  /**
   * A connector on the Unix socket {@code path}, added to {@code server}; with no {@code
   * factories}, plain HTTP/1.1, otherwise the chain given on one acceptor and one selector.
   *
   * @param idleTimeout how long a connection may say nothing; null for Jetty's default
   */
  public static UnixDomainServerConnector unixSocket(Server server, Path path,
      Duration idleTimeout, ConnectionFactory... factories) {
    UnixDomainServerConnector connector = factories.length == 0
        ? new UnixDomainServerConnector(server)
        : new UnixDomainServerConnector(server, 1, 1, factories);
    connector.setUnixDomainPath(path);
    idle(connector, idleTimeout);
    server.addConnector(connector);
    return connector;
  }

  /** What a caller does once its server started, before it counts as started. */
  @FunctionalInterface
  public interface Started {
    Started NOTHING = () -> { };

    void run() throws Exception;
  }

  /**
   * Starts {@code server}, then runs {@code then}; if either fails, stops the server (nothing is
   * left listening) and throws {@code cannot start WHAT: why}.
   */
  public static void start(Server server, String what, Started then) throws IOException {
    try {
      server.start();
      then.run();
    } catch (Exception e) {
      try {
        server.stop();
      } catch (Exception x) {
        e.addSuppressed(x);
      }
      throw new IOException("cannot start " + what + ": " + e.getMessage(), e);
    }
  }

  /** {@link #start(Server, String, Started)} with nothing to do after. */
  public static void start(Server server, String what) throws IOException {
    start(server, what, Started.NOTHING);
  }

  private static void idle(org.eclipse.jetty.server.AbstractConnector connector, Duration timeout) {
    if (timeout != null) {
      connector.setIdleTimeout(timeout.toMillis());
    }
  }
}
