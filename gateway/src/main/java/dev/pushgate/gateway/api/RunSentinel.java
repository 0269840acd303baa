package dev.pushgate.gateway.api;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Locale;
import org.eclipse.jetty.http.HttpHeader;

/** Lets through only calls that carry the run's sentinel, in any of the schemes gh and SDKs use. */
record RunSentinel(ApiSentinel sentinel) implements CallStep {
  @Override
  public CallDecision take(ApiExchange call) {
    String presented = presentedToken(call.request.getHeaders().get(HttpHeader.AUTHORIZATION));
    if (presented != null && sentinel.matches(presented)) {
      return CallDecision.NEXT;
    }
    return new CallDecision.Refused(401, "Bad credentials (pushgate: send this run's GH_TOKEN;"
        + " no other credential reaches GitHub from a run)");
  }

  /** The token a request carries: {@code token X}, {@code Bearer X}, or Basic {@code user:X}. */
  static String presentedToken(String authorization) {
    if (authorization == null) {
      return null;
    }
    String a = authorization.strip();
    int space = a.indexOf(' ');
    if (space < 0) {
      return null;
    }
    String scheme = a.substring(0, space).toLowerCase(Locale.ROOT);
    String value = a.substring(space + 1).strip();
    switch (scheme) {
      case "token":
      case "bearer":
        return value;
      case "basic":
        try {
          String pair = new String(Base64.getDecoder().decode(value), StandardCharsets.UTF_8);
          int colon = pair.indexOf(':');
          return colon < 0 ? null : pair.substring(colon + 1);
        } catch (IllegalArgumentException e) {
          return null;
        }
      default:
        return null;
    }
  }
}
