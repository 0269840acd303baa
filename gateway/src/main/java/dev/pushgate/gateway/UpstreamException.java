package dev.pushgate.gateway;

/** The upstream (GitHub or the local forge) could not be reached or refused us. */
public final class UpstreamException extends Exception {
  private static final long serialVersionUID = 1L;

  public UpstreamException(String message) {
    super(message);
  }

  public UpstreamException(String message, Throwable cause) {
    super(message, cause);
  }
}
