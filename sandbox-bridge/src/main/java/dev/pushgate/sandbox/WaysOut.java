package dev.pushgate.sandbox;

/**
 * The ways out a refused launch offers more than once, worded once: each refusal that names one
 * gives an operator the same sentence.
 */
final class WaysOut {
  /** Launch with no confinement at all: always there, never silent. */
  static final String SANDBOX_OFF =
      "start pushgate with --sandbox off: no confinement at all, reported as such";
  /** Drop the name-based write denies bubblewrap cannot enforce alone. */
  static final String DROP_DENY_WRITE_GLOBS =
      "set denyWriteGlobs in the workspace rules (for example to []): the run then launches"
          + " under bubblewrap and the enforcement summary reports the explicit weakening";

  private WaysOut() {}
}
