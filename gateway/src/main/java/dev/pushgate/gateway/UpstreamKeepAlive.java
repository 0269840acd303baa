package dev.pushgate.gateway;

import java.time.Duration;

/**
 * How long the gateway keeps an idle connection to the git host for its next request. The
 * gateway's ref-list reads, cache fetches and pushes go out through the JDK's {@link
 * java.net.HttpURLConnection} ({@link UpstreamHttp}, and JGit's transport), whose cache of idle
 * connections keeps one for 5 s unless the server says otherwise, and GitHub does not. So a push a
 * few seconds after a fetch, or a push whose pack took git more than 5 s to compute, opened a new
 * connection: a TCP handshake and, to GitHub, a TLS one, each a round trip that the gateway's
 * upstream leg adds to the push (issue 35; see docs/benchmarks.md, "Issue 35: over a wide-area
 * link").
 *
 * <p>Keeping a connection longer than the server does is safe: the JDK retries a ref-list read
 * (a GET) and a cache fetch (a POST sent whole, {@link UpstreamHttp#uploadPack}) once on a fresh
 * connection when the kept one turns out closed, and before a streamed POST (a push) it reuses a
 * kept connection only if the server has not closed it ({@code HttpClient.available()}); at most
 * 5 idle connections per host are kept.
 */
public final class UpstreamKeepAlive {
  /** The JDK's setting for servers that send no {@code Keep-Alive} header, in seconds. */
  static final String PROPERTY = "http.keepAlive.time.server";
  /** As long as a person or an agent may take between a fetch and the push that follows it. */
  public static final Duration IDLE = Duration.ofSeconds(60);

  private UpstreamKeepAlive() {}

  /**
   * Keeps idle upstream connections for {@link #IDLE} unless the JVM was started with {@code
   * -Dhttp.keepAlive.time.server}. The JDK reads it once, when it first keeps a connection: call
   * before the gateway's first upstream request, at the start of the process.
   */
  public static void apply() {
    if (System.getProperty(PROPERTY) == null) {
      System.setProperty(PROPERTY, String.valueOf(IDLE.toSeconds()));
    }
  }
}
