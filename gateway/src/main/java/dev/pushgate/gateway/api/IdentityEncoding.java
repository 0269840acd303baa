package dev.pushgate.gateway.api;

import org.eclipse.jetty.http.HttpHeader;

/**
 * Refuses an encoded request body: the judge reads the body's bytes as JSON, and an upstream
 * decoding them first would read another document than the one judged.
 */
final class IdentityEncoding {
  private IdentityEncoding() {}

  /** A {@link CallStep}. */
  static CallDecision take(ApiExchange call) {
    String encoding = call.request.getHeaders().get(HttpHeader.CONTENT_ENCODING);
    if (encoding == null || encoding.strip().equalsIgnoreCase("identity")) {
      return CallDecision.NEXT;
    }
    return new CallDecision.Refused(415, "pushgate does not forward encoded request bodies"
        + " (Content-Encoding): send the body as it is, which is what it judges");
  }
}
