package dev.pushgate.gateway;

/**
 * Where a cache's pack parser hands the pack as it consumes it, for a push streamed upstream
 * ({@link StreamedForward}): every byte of the pack as received but its 20-byte trailer, then the
 * trailer once the parser has read every object and checked the pack's checksum.
 */
interface PackCopy {
  /** The copy of a pack nobody streams. */
  PackCopy NONE = new PackCopy() {
    @Override
    public void objects(byte[] b, int off, int len) {
      // not copied
    }

    @Override
    public void objectsEnd(byte[] trailer) {
      // not copied
    }
  };

  /** The next bytes of the pack, as received: its header, then its objects. */
  void objects(byte[] b, int off, int len) throws java.io.IOException;

  /** Every object has been handed over; {@code trailer} is the pack's checked SHA-1 trailer. */
  void objectsEnd(byte[] trailer) throws java.io.IOException;
}
