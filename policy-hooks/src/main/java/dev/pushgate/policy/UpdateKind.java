package dev.pushgate.policy;

import dev.pushgate.types.EnumIds;
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
    return EnumIds.parse(UpdateKind.class, UpdateKind::id, id, "a kind of update");
  }
}
