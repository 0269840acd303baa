package dev.pushgate.appliance.runs;

/** A request about a run that cannot be carried out as asked; the message says why and what to do. */
public final class RunRequestException extends Exception {
  private static final long serialVersionUID = 1L;

  /** How the control API answers. */
  public enum Status {
    BAD_REQUEST(400),
    NOT_FOUND(404),
    UPSTREAM_UNAVAILABLE(502),
    INTERNAL(500);

    public final int http;

    Status(int http) {
      this.http = http;
    }
  }

  private final Status status;

  public RunRequestException(Status status, String message) {
    super(message);
    this.status = status;
  }

  public Status status() {
    return status;
  }
}
