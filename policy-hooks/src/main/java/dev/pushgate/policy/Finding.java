package dev.pushgate.policy;

import java.util.List;
import java.util.Objects;

/**
 * One thing the classifier saw a command do. The command policy turns each into a decision for
 * the mode and the workspace rules; the strictest wins.
 *
 * @param kind what sort of effect it is
 * @param action the action class, for {@link Kind#ACTION} only
 * @param label the command as a person would name it, e.g. {@code git push}, already one line
 * @param what what it does, completing "`label` …", e.g. {@code changes files}
 * @param pushTargets for a push, the refs it would update (empty when unknown)
 * @param judgedAt the boundary that judges what this finding does whatever the command line says,
 *     or null when none does (the command policy defers to it only where it is in force)
 */
record Finding(Kind kind, ActionClass action, String label, String what, List<PushTarget> pushTargets,
    Boundary judgedAt) {
  enum Kind {
    /** An action class the workspace rules decide. */
    ACTION,
    /** Changes local state: denied in read-only modes. */
    STATE_CHANGE,
    /** Changes state somewhere else (a registry, GitHub): asks in chat, denied when read-only. */
    REMOTE_CHANGE,
    /** On the fixed list no mode runs. */
    FORBIDDEN,
    /** What actually runs cannot be seen: judged fail-closed. */
    OPAQUE
  }

  Finding {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(label, "label");
    Objects.requireNonNull(what, "what");
    if ((kind == Kind.ACTION) != (action != null)) {
      throw new IllegalArgumentException("an action finding needs an action, and only it");
    }
    pushTargets = pushTargets == null ? List.of() : List.copyOf(pushTargets);
  }

  Finding(Kind kind, ActionClass action, String label, String what, List<PushTarget> pushTargets) {
    this(kind, action, label, what, pushTargets, null);
  }

  /** The same finding, judged at {@code boundary}. */
  Finding judgedAt(Boundary boundary) {
    return new Finding(kind, action, label, what, pushTargets, boundary);
  }
}
