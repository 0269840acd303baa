package dev.pushgate.sandbox;

import dev.pushgate.types.ConnectionFailure;
import java.io.InterruptedIOException;
import java.util.concurrent.TimeoutException;

/**
 * A target the proxy admitted but could not reach, as both its handlers answer it (a tunnel's
 * CONNECT and a forwarded request): the target's failure, not a refusal and not the proxy's own.
 * 503 when every lookup it may make is under way, 504 when the target did not answer in time,
 * else 502, with a line that says which target and why in fixed words ({@link
 * ConnectionFailure}).
 */
final class EgressUnreachable {
  private EgressUnreachable() {}

  static int status(Throwable failure) {
    if (failure instanceof HostResolver.Busy) {
      return 503;
    }
    return failure instanceof TimeoutException || failure instanceof InterruptedIOException
        ? 504 : 502;
  }

  static String line(String target, Throwable failure) {
    String why = failure instanceof HostResolver.Busy busy ? busy.getMessage()
        : failure instanceof TimeoutException ? "no answer in time"
        : ConnectionFailure.describe(failure);
    return "pushgate: could not connect to " + target + ": " + why;
  }
}
