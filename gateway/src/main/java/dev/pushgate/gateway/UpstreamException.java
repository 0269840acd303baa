package dev.pushgate.gateway;

/** The upstream (GitHub or the local forge) could not be reached or refused us. */
public final class UpstreamException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Whether the message is one the person pushing can act on, shown to them as it is. */
  private final boolean forThePersonPushing;

  public UpstreamException(String message) {
    this(message, null, false);
  }

  public UpstreamException(String message, Throwable cause) {
    this(message, cause, false);
  }

  private UpstreamException(String message, Throwable cause, boolean forThePersonPushing) {
    super(message, cause);
    this.forThePersonPushing = forThePersonPushing;
  }

  /**
   * A refusal by the gateway itself on the way upstream (a run past its budget of write
   * tokens), with a message that says what to do; git shows it as it is.
   */
  static UpstreamException refusal(String message) {
    return new UpstreamException(message, null, true);
  }

  boolean forThePersonPushing() {
    return forThePersonPushing;
  }
}
