package dev.pushgate.appliance;

import dev.pushgate.forge.LocalForge;
import dev.pushgate.gateway.Gateway;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * What the gateway socket bridged into sandboxes serves: the gateway, the run's hook endpoint, and with the local forge its fetches (the forge stands in for github.com,
 * which a sandbox fetches from). Everything else (the forge's App API, {@code /metrics}, {@code
 * /healthz}, whatever is added later) answers 404 there. The path judged is the one Jetty routes
 * on, decoded and normalised. Requests that came this way are marked, so that the forge refuses
 * them a receive-pack where JGit creates one.
 */
public final class SandboxSocket extends Handler.Wrapper {
  /** Set on every request that came over the sandbox socket: the attribute the forge reads. */
  public static final String ATTRIBUTE = LocalForge.FROM_SANDBOX_ATTRIBUTE;

  private static final String HOOKS = "/v1/hooks/";

  private final Connector connector;
  private final boolean localForge;

  public SandboxSocket(Connector connector, boolean localForge, Handler handler) {
    super(handler);
    this.connector = connector;
    this.localForge = localForge;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    if (request.getConnectionMetaData().getConnector() != connector) {
      return super.handle(request, response, callback);
    }
    String path = request.getHttpURI().getCanonicalPath();
    if (path == null || !served(path)) {
      response.setStatus(404);
      response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; charset=UTF-8");
      response.write(true, ByteBuffer.wrap(("Not served to sandboxes: a run reaches the gateway and "
          + HOOKS + " here.\n")
          .getBytes(StandardCharsets.UTF_8)), callback);
      return true;
    }
    request.setAttribute(ATTRIBUTE, Boolean.TRUE);
    return super.handle(request, response, callback);
  }

  boolean served(String path) {
    if (path.startsWith(Gateway.CONTEXT_PATH + "/") || path.startsWith(HOOKS)) {
      return true;
    }
    String api = LocalForge.CONTEXT_PATH + LocalForge.API_PATH;
    return localForge && path.startsWith(LocalForge.CONTEXT_PATH + "/")
        && !(path.equals(api) || path.startsWith(api + "/"));
  }
}
