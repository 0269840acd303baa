package dev.pushgate.gateway.api;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.eclipse.jetty.http.HttpField;

/**
 * Refuses a call that asks for another method than its request line's. GitHub documents no
 * override, but an upstream (or a framework in front of it) honouring one would run a method the
 * judge never saw on the judged path; the boundary refuses them rather than bet on it.
 */
final class MethodOverrides {
  private static final Set<String> HEADERS = Set.of("x-http-method-override", "x-http-method",
      "x-method-override");

  private MethodOverrides() {}

  /** A {@link CallStep}. */
  static CallDecision take(ApiExchange call) {
    String override = override(call);
    if (override == null) {
      return CallDecision.NEXT;
    }
    return new CallDecision.Refused(400, "pushgate does not forward method overrides ("
        + override + "): send the method itself, which is what the boundary judges");
  }

  /** The first method-override header or {@code _method} parameter the call carries, or null. */
  private static String override(ApiExchange call) {
    for (HttpField f : call.request.getHeaders()) {
      if (HEADERS.contains(f.getLowerCaseName())) {
        return f.getName();
      }
    }
    if (call.query != null) {
      for (String pair : call.query.split("&")) {
        String name = pair.contains("=") ? pair.substring(0, pair.indexOf('=')) : pair;
        try {
          name = URLDecoder.decode(name, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
          return "an unreadable query parameter";
        }
        if (name.strip().equalsIgnoreCase("_method")) {
          return "_method";
        }
      }
    }
    return null;
  }
}
