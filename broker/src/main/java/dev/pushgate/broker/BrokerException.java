package dev.pushgate.broker;

import java.util.Objects;
import java.util.Optional;

/**
 * Why the broker could not do what it was asked. The message is one line meant for an operator:
 * what failed, what to do, and GitHub's request id when there is one. It never holds a token, a
 * JWT or key material.
 */
public final class BrokerException extends Exception {

  /** What went wrong, for callers that decide by kind rather than by message. */
  public enum Reason {
    /** The App is not installed on the repository (or the installation is gone). */
    NOT_INSTALLED,
    /** GitHub rejected the App JWT: wrong App ID, wrong key, or a skewed clock. */
    BAD_CREDENTIALS,
    /** GitHub refused: missing permission, suspended installation, and the like. */
    FORBIDDEN,
    /** A rate limit that did not lift before the retry deadline. */
    RATE_LIMITED,
    /** GitHub rejected the request body (422), or the caller passed an unusable value. */
    VALIDATION_FAILED,
    /** GitHub kept failing (5xx) or answered with a status the broker does not expect. */
    UPSTREAM_ERROR,
    /** GitHub could not be reached. */
    NETWORK,
    /** GitHub did not answer in time. */
    TIMEOUT,
    /** GitHub's answer could not be read or lacked what the broker needs to trust it. */
    MALFORMED_RESPONSE,
    /** GitHub granted more than asked; the token was revoked at once. */
    OVER_GRANTED,
    /** The App private key file is missing, unreadable or not a usable key. */
    BAD_KEY,
    /** The calling thread was interrupted while waiting to retry. */
    INTERRUPTED
  }

  private final Reason reason;
  private final String requestId;

  public BrokerException(Reason reason, String message) {
    this(reason, message, null, null);
  }

  BrokerException(Reason reason, String message, String requestId) {
    this(reason, message, requestId, null);
  }

  BrokerException(Reason reason, String message, String requestId, Throwable cause) {
    super(withRequestId(message, requestId), cause);
    this.reason = Objects.requireNonNull(reason, "reason");
    this.requestId = requestId;
  }

  public Reason reason() {
    return reason;
  }

  /** GitHub's {@code x-github-request-id} of the answer that caused this, for support tickets. */
  public Optional<String> requestId() {
    return Optional.ofNullable(requestId);
  }

  private static String withRequestId(String message, String requestId) {
    Objects.requireNonNull(message, "message");
    return requestId == null ? message : message + " (request id " + requestId + ")";
  }
}
