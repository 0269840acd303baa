package dev.pushgate.policy;

import java.util.Locale;

/** The kind of a single ref update in a push. */
public enum UpdateKind {
  /** A ref that did not exist. */
  CREATE,
  /** A fast-forward of an existing ref. */
  UPDATE,
  /** A non-fast-forward update: history is rewritten. */
  FORCE,
  /** The ref is removed. */
  DELETE;

  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static UpdateKind fromId(String id) {
    for (UpdateKind k : values()) {
      if (k.id().equals(id)) {
        return k;
      }
    }
    throw new IllegalArgumentException(
        "not a kind of update: " + id + " (expected create, update, force or delete)");
  }
}
