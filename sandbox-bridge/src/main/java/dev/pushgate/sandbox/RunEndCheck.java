package dev.pushgate.sandbox;

import java.util.List;

/**
 * Looks at what a launch left on the host once its command has ended, undoes what it may not
 * leave, and reports each as a violation. Runs before the {@code exit} event.
 */
interface RunEndCheck {
  RunEndCheck NONE = List::of;

  List<SandboxViolation> check();
}
