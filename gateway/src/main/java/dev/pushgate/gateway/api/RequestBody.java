package dev.pushgate.gateway.api;

import dev.pushgate.types.BoundedBody;
import java.io.IOException;
import java.io.InputStream;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;

/**
 * Reads the call's body whole ({@link BoundedBody}), since the judge reads it whole: at most
 * {@link ApiBoundary#MAX_BODY} bytes, each counted against the run's buffered bytes as it
 * arrives (the exchange gives them back when the call ends). A read carries no body: one would
 * be sent on unjudged.
 */
final class RequestBody {
  private RequestBody() {}

  /** A {@link CallStep}. */
  static CallDecision take(ApiExchange call) {
    long declared = call.request.getHeaders().getLongField(HttpHeader.CONTENT_LENGTH);
    try (InputStream in = Content.Source.asInputStream(call.request)) {
      call.body(BoundedBody.read(in, declared, ApiBoundary.MAX_BODY, call::holdBodyBytes));
    } catch (BoundedBody.Refused e) {
      return e.why() == BoundedBody.Refused.Why.OVER_BUDGET
          ? new CallDecision.Refused(429, "pushgate is already holding "
              + ApiBoundary.BUFFERED_BYTES + " bytes of this run's request bodies; send fewer"
              + " large calls at once")
          : tooLarge();
    } catch (IOException e) {
      return new CallDecision.Refused(400, "the request body could not be read");
    }
    if (call.body().length > 0 && (call.method.equals("GET") || call.method.equals("HEAD"))) {
      return new CallDecision.Refused(400, "a " + call.method + " request with a body is not"
          + " forwarded by pushgate: reads are judged by their path alone");
    }
    return CallDecision.NEXT;
  }

  private static CallDecision tooLarge() {
    return new CallDecision.Refused(413, "the request body is larger than the "
        + ApiBoundary.MAX_BODY + " bytes pushgate judges");
  }
}
