package dev.pushgate.gateway;

import java.io.IOException;
import org.eclipse.jgit.lib.AnyObjectId;
import org.eclipse.jgit.lib.ObjectLoader;
import org.eclipse.jgit.lib.ObjectReader;

/**
 * A reader whose every {@code open} of an object is first put to a check, which may refuse it (a
 * thin pack's base the run may not use, {@link ThinPackBases}) or count it (a decision's bound,
 * {@link ReachBound}). Everything else is the reader's own; closing it closes the reader.
 */
final class CheckedOpens {
  /** Looks at an object about to be opened: returns to let it be, throws to refuse it. */
  @FunctionalInterface
  interface Check {
    void beforeOpen(AnyObjectId id) throws IOException;
  }

  private CheckedOpens() {}

  static ObjectReader of(ObjectReader reader, Check check) {
    return new DelegatingReader() {
      @Override
      protected ObjectReader delegate() {
        return reader;
      }

      @Override
      public ObjectLoader open(AnyObjectId id) throws IOException {
        return open(id, OBJ_ANY);
      }

      @Override
      public ObjectLoader open(AnyObjectId id, int typeHint) throws IOException {
        check.beforeOpen(id);
        return reader.open(id, typeHint);
      }
    };
  }
}
