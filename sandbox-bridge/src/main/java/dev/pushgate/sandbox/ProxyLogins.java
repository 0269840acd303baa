package dev.pushgate.sandbox;

import dev.pushgate.types.Secret;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Locale;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;

/**
 * The runs a shared loopback proxy serves (runs used by hand: no launcher gives them a proxy of
 * their own), told apart by the login in their proxy URL,
 * {@code HTTPS_PROXY=http://<run id>:<secret>@127.0.0.1:<port>}, which curl, git, gh, Python and
 * Node send as a Basic {@code Proxy-Authorization}. Filled by the appliance.
 */
@FunctionalInterface
public interface ProxyLogins {
  /** What the proxy answers a request without a live run's login, with its 407. */
  String CHALLENGE = "Basic realm=\"pushgate\"";

  /** The API interception of the run this login is, or null when it is no live run's. */
  ApiInterception runOf(String user, String password);

  /** The logins of one run's own proxy: {@code user} with {@code password}, nothing else. */
  static ProxyLogins one(String user, Secret password, ApiInterception run) {
    return (u, p) -> user.equals(u) && password.matches(p) ? run : null;
  }

  /** The run {@code request}'s {@code Proxy-Authorization} names, or null. */
  default ApiInterception runOf(Request request) {
    String value = request.getHeaders().get(HttpHeader.PROXY_AUTHORIZATION);
    if (value == null || value.length() < 7
        || !value.substring(0, 6).toLowerCase(Locale.ROOT).equals("basic ")) {
      return null;
    }
    String login;
    try {
      login = new String(Base64.getDecoder().decode(value.substring(6).trim()),
          StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return null;
    }
    int colon = login.indexOf(':');
    return colon <= 0 ? null : runOf(login.substring(0, colon), login.substring(colon + 1));
  }
}
