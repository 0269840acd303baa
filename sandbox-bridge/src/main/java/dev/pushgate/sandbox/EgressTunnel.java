package dev.pushgate.sandbox;

import dev.pushgate.types.LogLineRate;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.HttpStream;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ConnectHandler;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.HostPort;
import org.eclipse.jetty.util.Promise;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * CONNECT tunnels; anything else goes to the forward proxy. The API names go to the boundary
 * of the proxy's run ({@code interception}), or, on a shared proxy, of the run its login names,
 * which takes the connection over there ({@link ApiInterception.TakeOver}).
 */
final class EgressTunnel extends ConnectHandler {
  private static final Logger LOG = LoggerFactory.getLogger(EgressTunnel.class);
  /** The request attribute holding a shared proxy's run, read from the request's login. */
  private static final String RUN = "pushgate.run-interception";
  /** The request attribute marking a tunnel to the API boundary. */
  private static final String TO_BOUNDARY = "pushgate.to-boundary";
  /**
   * How long a tunnel to the API boundary may carry nothing before the proxy closes it: a
   * backstop only. The boundary decides when its connections are idle (30 s between calls, an
   * answer its client does not read) and closes them, which closes the tunnel; while it handles
   * a call (an approver deciding, up to the approval timeout; GitHub answering) nothing crosses
   * the tunnel, and the proxy's own 30 s (Jetty's default) cut such a call as if its client had
   * gone (attack38).
   */
  static final Duration BOUNDARY_TUNNEL_IDLE = Duration.ofHours(1);
  /**
   * The line a failed tunnel logs, at most one per 10 s: a run can ask for tunnels to hosts that
   * refuse hundreds of times a second, and its client reads why from the answer.
   */
  private final LogLineRate failures = new LogLineRate(Duration.ofSeconds(10));
  private final EgressProxy.Gate gate;
  private final ApiInterception interception;
  private final ProxyLogins logins;
  private final LoginDeadline connections;
  private final RunConnections held;
  /**
   * Whether the boundary takes the API names' connections over here ({@link #takeOver}): only
   * on a proxy that runs on the boundary's threads, which its calls then hold.
   */
  private final boolean handsOver;

  EgressTunnel(EgressProxy.Gate gate, EgressForward next, ApiInterception interception,
      ProxyLogins logins, LoginDeadline connections, RunConnections held, boolean handsOver) {
    super(next);
    this.handsOver = handsOver;
    this.gate = gate;
    this.interception = interception;
    this.logins = logins;
    this.connections = connections;
    this.held = held;
  }

  private ApiInterception interceptionOf(Request request) {
    return logins == null ? interception : (ApiInterception) request.getAttribute(RUN);
  }

  /** The run whose connections {@code request}'s counts among ({@link RunConnections}). */
  private Object heldFor(Request request) {
    return logins == null ? RunConnections.ONE_RUN : request.getAttribute(RUN);
  }

  private static void loginRequired(Request request, Response response, Callback callback) {
    response.getHeaders().put(HttpHeader.PROXY_AUTHENTICATE, ProxyLogins.CHALLENGE);
    response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE);
    Response.writeError(request, response, callback, 407, EgressProxy.LOGIN_REQUIRED);
  }

  /**
   * The CONNECT target alone decides where the tunnel goes; it must be RFC 9110's authority
   * form, {@code host:port}. Jetty would read a target without a port as port 80: refuse that,
   * and anything else that is not a host and a port, saying what to send.
   */
  @Override
  protected void handleConnect(
      Request request, Response response, Callback callback, String serverAddress) {
    if (!authorityForm(serverAddress)) {
      response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE);
      Response.writeError(request, response, callback, 400,
          "pushgate: a CONNECT names its target as host:port (RFC 9110 authority-form), e.g. "
              + "CONNECT api.github.com:443");
      return;
    }
    ApiInterception interception = this.interception;
    if (logins != null) {
      interception = logins.runOf(request);
      if (interception == null) {
        loginRequired(request, response, callback);
        return;
      }
      request.setAttribute(RUN, interception);
      connections.loggedIn(request);
    }
    if (held != null) {
      EndPoint client = request.getConnectionMetaData().getConnection().getEndPoint();
      RunConnections.Admission admission = held.admit(heldFor(request), client);
      if (admission != RunConnections.Admission.COUNTED) {
        response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE);
        Response.writeError(request, response, RunConnections.closingAfter(request, callback),
            admission.status, admission.refusal);
        return;
      }
    }
    // Refused here rather than by validateDestination, whose 403 says only "Forbidden": the
    // client (and an agent reading curl's verbose output) gets the reason and what to use.
    HostPort target = new HostPort(serverAddress);
    if (interception == null || interception.target(target.getHost(), target.getPort()) == null) {
      String refused = gate.admit(target.getHost(), target.getPort(), "CONNECT");
      if (refused != null) {
        response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE);
        Response.writeError(request, response, callback, 403,
            "pushgate: egress refused: " + refused);
        return;
      }
    }
    if (handsOver && interception.takeOver() != null
        && interception.target(target.getHost(), target.getPort()) != null) {
      takeOver(request, response, callback, interception.takeOver());
      return;
    }
    super.handleConnect(request, response, callback, serverAddress);
  }

  /**
   * A CONNECT to an API name on the shared proxy, which runs in the boundary's process: answered
   * 200 here, and the connection becomes the run's TLS connection on the boundary (the boundary's
   * {@code takeOver}), which the client's TLS then meets on the same socket. A tunnel would relay
   * every byte through a second socket to the boundary's listener and back, and wake a thread at
   * each hop. The run's connections (this one among them, {@link RunConnections}) still close
   * when the run ends.
   */
  private static void takeOver(Request request, Response response, Callback callback,
      ApiInterception.TakeOver boundary) {
    EndPoint client = request.getConnectionMetaData().getConnection().getEndPoint();
    Connection tls = boundary.connection(client);
    if (tls == null) {
      response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE);
      Response.writeError(request, response, callback, 503, "pushgate: the GitHub API boundary"
          + " takes no more connections of this run now: the run has ended, or holds its most"
          + " open at once; close some and try again");
      return;
    }
    opened(request, response, callback, tls);
  }

  /**
   * The 200 that opens a tunnel, after which the connection is {@code next}'s: written as a
   * write of the response's own, the request's callback completed once that write has ({@link
   * #onConnectSuccess} says why).
   */
  private static void opened(Request request, Response response, Callback callback,
      Connection next) {
    request.setAttribute(HttpStream.UPGRADE_CONNECTION_ATTRIBUTE, next);
    response.setStatus(HttpStatus.OK_200);
    response.getHeaders().put(HttpFields.CONTENT_LENGTH_0);
    response.write(true, BufferUtil.EMPTY_BUFFER, Callback.from(callback::succeeded,
        callback::failed));
  }

  static boolean authorityForm(String target) {
    if (target == null || target.isEmpty()) {
      return false;
    }
    try {
      HostPort hp = new HostPort(target);
      return !hp.getHost().isEmpty() && hp.getPort() > 0 && hp.getPort() <= 65535;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /**
   * Asked by Jetty after {@link #handleConnect} has admitted the target (or found it one of
   * the API names, which go to the boundary and are judged there): nothing more to decide.
   */
  @Override
  public boolean validateDestination(String host, int port) {
    return true;
  }

  /**
   * A tunnel goes to the address the gate gives for its host, looked up within the share of
   * lookups of the run whose login asked ({@link HostResolver#resolve(String, Object)}): a name
   * whose server never answers holds a thread until the system's resolver gives up. A tunnel to
   * the API boundary starts with the PROXY header naming the run: the listener is every run's,
   * and takes no connection that names none. Written before the tunnel relays the client's first
   * byte; the boundary is on loopback, so the blocking connect is brief.
   */
  @Override
  protected void connectToServer(Request request, String host, int port,
      Promise<SocketChannel> promise) {
    ApiInterception interception = interceptionOf(request);
    InetSocketAddress boundary = interception == null ? null : interception.target(host, port);
    InetSocketAddress address;
    try {
      address = boundary != null ? boundary : gate.address(host, port, interception);
    } catch (IOException | RuntimeException e) {
      promise.failed(e);
      return;
    }
    SocketChannel channel = null;
    try {
      channel = SocketChannel.open();
      channel.socket().setTcpNoDelay(true);
      if (boundary == null) {
        channel.configureBlocking(false);
        channel.connect(address); // finished by Jetty's selector, as its own connectToServer does
      } else {
        channel.socket().connect(boundary, (int) getConnectTimeout());
        ByteBuffer header = ByteBuffer.wrap(interception.proxyHeader());
        while (header.hasRemaining()) {
          channel.write(header);
        }
        channel.configureBlocking(false);
        request.setAttribute(TO_BOUNDARY, Boolean.TRUE);
      }
      promise.succeeded(channel);
    } catch (IOException | RuntimeException e) {
      if (channel != null) {
        try {
          channel.close();
        } catch (IOException x) {
          e.addSuppressed(x);
        }
      }
      promise.failed(e);
    }
  }

  /**
   * The far end of a tunnel a run's login opened is the run's too: closing the client's end
   * alone leaves it open until its idle timeout. Both ends of a tunnel to the API boundary wait
   * as long as the boundary does ({@link #BOUNDARY_TUNNEL_IDLE}).
   */
  @Override
  protected UpstreamConnection newUpstreamConnection(EndPoint endPoint, ConnectContext context) {
    Request request = context.getRequest();
    if (held != null && heldFor(request) != null) {
      held.farEnd(heldFor(request), endPoint);
    }
    if (Boolean.TRUE.equals(request.getAttribute(TO_BOUNDARY))) {
      endPoint.setIdleTimeout(BOUNDARY_TUNNEL_IDLE.toMillis());
      request.getConnectionMetaData().getConnection().getEndPoint()
          .setIdleTimeout(BOUNDARY_TUNNEL_IDLE.toMillis());
    }
    return super.newUpstreamConnection(endPoint, context);
  }

  /**
   * Jetty's own, but for how the 200 is sent: as a write of the response's own, the request's
   * callback completed once that write has. Jetty (12.1.14) sends it as the callback's last write,
   * whose completion marks the send done before it runs the write's callback; a handler thread
   * still returning from {@link #handle} (a tunnel to the boundary connects before it returns)
   * may complete the stream in that gap, and the write's callback then completes it again. Seen as
   * the proxy's "Serialized invocation error" ({@code NullPointerException} in {@code
   * HttpChannelState.completeStream}) twice in 160 of a run's {@code gh} calls; a stream completed
   * twice can close the tunnel just after its 200, and a client then reads EOF where its TLS
   * handshake should be (a run's {@code gh api graphql} failed so, once, in CI). Here the callback
   * completes after the write has, and the stream is completed once, by whichever of the two
   * threads comes second.
   *
   * <p>And the far end goes with the client's: a client that leaves before its tunnel is made (a
   * close or a reset right behind its CONNECT) never gets the tunnel's client side, which is what
   * would pass its leaving on, and the far end stayed open until its idle timeout, an hour for
   * the boundary's (attack4: one descriptor per CONNECT, in the launcher's process or, for the
   * shared proxy, the appliance's).
   */
  @Override
  protected void onConnectSuccess(ConnectContext context, UpstreamConnection upstream) {
    Request request = context.getRequest();
    closeWithClient(request.getConnectionMetaData().getConnection(), upstream);
    prepareContext(request, context.getContext());
    DownstreamConnection downstream =
        newDownstreamConnection(context.getEndPoint(), context.getContext());
    downstream.setInputBufferSize(getBufferSize());
    upstream.setConnection(downstream);
    downstream.setConnection(upstream);
    opened(request, context.getResponse(), context.getCallback(), downstream);
  }

  /**
   * Closes {@code upstream} when the client's connection closes with its end point, as it does
   * when the client leaves; not when the tunnel takes the end point over (the connection closes,
   * its end point stays open), after which the tunnel passes the client's leaving on itself.
   */
  private static void closeWithClient(Connection client, UpstreamConnection upstream) {
    client.addEventListener(new Connection.Listener() {
      @Override
      public void onClosed(Connection connection) {
        if (!connection.getEndPoint().isOpen()) {
          upstream.close();
        }
      }
    });
    if (!client.getEndPoint().isOpen()) { // gone before the listener was added
      upstream.close();
    }
  }

  /**
   * A refusal is 403 in the gate's words; a target the proxy could not reach is answered saying
   * which and why ({@link EgressUnreachable}; Jetty's own was a bare 500, which reads as the
   * proxy's fault and says nothing).
   */
  @Override
  protected void onConnectFailure(
      Request request, Response response, Callback callback, Throwable failure) {
    response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE);
    if (failure instanceof EgressProxy.Refused r) {
      Response.writeError(request, response, callback, 403, "pushgate: " + r.getMessage());
      return;
    }
    String target = request.getHttpURI().getAuthority();
    if (!(failure instanceof HostResolver.Busy)) {
      long failed = failures.event();
      if (failed > 0) {
        LOG.info("egress: CONNECT {} failed: {} ({} tunnel(s) failed since the last such line)",
            target, failure.getClass().getName(), failed);
      }
    }
    Response.writeError(request, response, callback, EgressUnreachable.status(failure),
        EgressUnreachable.line(target, failure));
  }
}
