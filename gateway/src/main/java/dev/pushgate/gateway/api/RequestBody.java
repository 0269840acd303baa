package dev.pushgate.gateway.api;

import dev.pushgate.gateway.RunShares;
import dev.pushgate.http.ArrivingBody;
import dev.pushgate.types.BoundedBody;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;

/**
 * Reads the call's body whole, since the judge reads it whole, as it arrives and on no thread
 * ({@link ArrivingBody}): at most {@link ApiBoundary#MAX_BODY} bytes, each counted against the
 * run's share of every run's buffered bytes ({@link BufferedBytes}) before it is held (a declared
 * length at once, into one buffer of that length; a body of no declared length as it arrives),
 * given back by the exchange when the call ends however it ends, and all
 * of it within the body deadline ({@link ApiBoundary#BODY_DEADLINE}), however it is paced. It is
 * read before the call takes a slot ({@link CallSlots}): a body dripped a byte at a time holds a
 * connection and its bytes until the deadline, never a thread or a slot. A read carries no body:
 * one would be sent on unjudged.
 */
final class RequestBody {
  private RequestBody() {}

  /** {@link CallDecision#NEXT} with the body in the exchange, or why the call is refused. */
  static CompletableFuture<CallDecision> read(ApiExchange call, Duration deadline) {
    long declared = call.request.getHeaders().getLongField(HttpHeader.CONTENT_LENGTH);
    if (isRead(call) && (declared > 0
        || call.request.getHeaders().contains(HttpHeader.TRANSFER_ENCODING))) {
      // Refused at its head, before a byte of the body is taken from a budget or waited for.
      call.response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString());
      return CompletableFuture.completedFuture(readWithABody(call));
    }
    return ArrivingBody.read(call.request, declared, ApiBoundary.MAX_BODY, call.bodyBudget())
        .orTimeout(deadline.toMillis(), TimeUnit.MILLISECONDS)
        .handle((body, failure) -> failure == null ? whole(call, body)
            : refused(call, failure instanceof CompletionException ? failure.getCause() : failure,
                deadline));
  }

  private static CallDecision whole(ApiExchange call, byte[] body) {
    call.body(body);
    return body.length > 0 && isRead(call) ? readWithABody(call) : CallDecision.NEXT;
  }

  private static boolean isRead(ApiExchange call) {
    return call.method.equals("GET") || call.method.equals("HEAD");
  }

  private static CallDecision readWithABody(ApiExchange call) {
    return new CallDecision.Refused(400, "a " + call.method + " request with a body is not"
        + " forwarded by pushgate: reads are judged by their path alone");
  }

  private static CallDecision refused(ApiExchange call, Throwable failure, Duration deadline) {
    // What is left of the body is not read: the connection is not used for another request.
    call.response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString());
    if (failure instanceof TimeoutException) {
      return new CallDecision.Refused(408, "pushgate reads a call's whole body within "
          + deadline.toSeconds() + " s of its head, and this one's had not all arrived: send the"
          + " body at once, with the request");
    }
    if (failure instanceof BoundedBody.Refused r && r.why() == BoundedBody.Refused.Why.OVER_BUDGET) {
      return overBudget(call);
    }
    if (failure instanceof BoundedBody.Refused) {
      return new CallDecision.Refused(413, "the request body is larger than the "
          + ApiBoundary.MAX_BODY + " bytes pushgate judges");
    }
    return new CallDecision.Refused(400, "the request body could not be read");
  }

  /** A body over the run's share of the buffered bytes, or over what every run has left. */
  private static CallDecision overBudget(ApiExchange call) {
    RunShares.Take why = call.refused();
    if (why == RunShares.Take.OWN_BOUND) {
      return new CallDecision.Refused(429, "pushgate is already holding " + call.runMayHold()
          + " bytes of this run's request bodies; send fewer large calls at once");
    }
    call.response.getHeaders().put(HttpHeader.RETRY_AFTER, ApiBoundary.RETRY_AFTER_SECONDS);
    if (why == RunShares.Take.SHARE) {
      return new CallDecision.Refused(429, "pushgate is holding the request bodies of many runs"
          + " at once, and this body is more than this run's share of what is left (it holds "
          + call.runHolds() + " bytes already); retry after " + ApiBoundary.RETRY_AFTER_SECONDS
          + " s, or send a smaller body");
    }
    return new CallDecision.Refused(429, "pushgate is holding as many request bodies as it"
        + " can for every run together; retry after " + ApiBoundary.RETRY_AFTER_SECONDS
        + " s, or send a smaller body");
  }
}
