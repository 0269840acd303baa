package dev.pushgate.sandbox;

/**
 * A run request the bridge cannot build a spec from; the appliance answers 400. The message names
 * the field and the bad value (paths and ids only, never an environment value).
 */
public final class SandboxRequestException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String field;

  public SandboxRequestException(String field, String message) {
    super(message);
    this.field = field;
  }

  /** The request field at fault, e.g. {@code workdir} or {@code protectedPaths[1]}. */
  public String field() {
    return field;
  }
}
