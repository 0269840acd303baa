package dev.pushgate.gateway;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * A pack the cache fetches from upstream, kept in a temporary file as the cache's parser consumes
 * it, for one client to read while it arrives ({@link FetchStream}). The cache's fetch writes and
 * never waits for the reader: a client that stops reading holds back no one but itself.
 *
 * <p>The reader is given every byte of the pack as received but its 20-byte trailer; the trailer
 * only once the cache's fetch has checked the whole pack and found every object it asked for
 * ({@link #complete}). Without the trailer no client accepts a pack, so a pack the cache refuses
 * is one the client cannot complete: it gets the error of {@link #fail} instead.
 */
final class PackSpool implements PackCopy, AutoCloseable {
  private final Path file;
  private final FileChannel out;
  private long objectsEnd;
  private byte[] trailer;
  private boolean complete;
  private String failure;
  private boolean claimed;
  private boolean readerClosed;
  private boolean writerEnded;

  private PackSpool(Path file) throws IOException {
    this.file = file;
    this.out = FileChannel.open(file, StandardOpenOption.WRITE);
  }

  /** A new, empty spool in {@code dir}. */
  static PackSpool in(Path dir) throws IOException {
    return new PackSpool(Files.createTempFile(dir, "streamed-", ".pack"));
  }

  @Override
  public void objects(byte[] b, int off, int len) throws IOException {
    ByteBuffer buf = ByteBuffer.wrap(b, off, len);
    while (buf.hasRemaining()) {
      out.write(buf);
    }
    synchronized (this) {
      objectsEnd += len;
      notifyAll();
    }
  }

  @Override
  public synchronized void objectsEnd(byte[] checkedTrailer) {
    trailer = checkedTrailer.clone();
  }

  /** The cache has the whole pack and every object it asked for: the reader gets the trailer. */
  synchronized void complete() {
    if (trailer != null && failure == null) {
      complete = true;
    } else if (failure == null) {
      failure = "upstream's pack ended without its trailer";
    }
    endWriter();
  }

  /** The cache's fetch failed, or ended without a pack: the reader gets {@code why}. */
  synchronized void fail(String why) {
    if (!complete && failure == null) {
      failure = why;
    }
    endWriter();
  }

  /** Whether the cache's fetch has ended, well or not. */
  synchronized boolean ended() {
    return writerEnded;
  }

  /**
   * The one reader of this spool, if nobody took it yet and the cache's fetch is still under way
   * (once it ended, the cache serves the client as it serves any other).
   */
  synchronized Optional<Reader> claim() {
    if (claimed || writerEnded) {
      return Optional.empty();
    }
    claimed = true;
    return Optional.of(new Reader());
  }

  private void endWriter() {
    writerEnded = true;
    notifyAll();
    try {
      out.close();
    } catch (IOException e) {
      // the reader reads its own channel; the file goes below
    }
    deleteWhenUnread();
  }

  private void deleteWhenUnread() {
    if (writerEnded && (!claimed || readerClosed)) {
      try {
        Files.deleteIfExists(file);
      } catch (IOException e) {
        file.toFile().deleteOnExit();
      }
    }
  }

  @Override
  public synchronized void close() {
    fail("the gateway is stopping");
  }

  /** Reads the spool from its first byte as it grows. */
  final class Reader implements AutoCloseable {
    private final FileChannel in;
    private long position;
    private boolean trailerRead;

    private Reader() {
      try {
        this.in = FileChannel.open(file, StandardOpenOption.READ);
      } catch (IOException e) {
        throw new IllegalStateException("the spool's file is gone", e);
      }
    }

    /**
     * Up to {@code len} further bytes of the pack, waiting for them; -1 once the whole pack,
     * trailer included, was read.
     *
     * @throws IOException when the cache's fetch failed: the message says why
     */
    int read(byte[] b, int off, int len) throws IOException {
      long available;
      synchronized (PackSpool.this) {
        while (position == objectsEnd && failure == null && !complete) {
          try {
            PackSpool.this.wait();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while streaming the pack", e);
          }
        }
        if (failure != null) {
          throw new IOException(failure);
        }
        available = objectsEnd - position;
        if (available == 0) { // complete, every object read
          if (trailerRead) {
            return -1;
          }
          if (len < trailer.length) {
            throw new IllegalArgumentException("read the trailer into 20 bytes or more");
          }
          System.arraycopy(trailer, 0, b, off, trailer.length);
          trailerRead = true;
          return trailer.length;
        }
      }
      int n = in.read(ByteBuffer.wrap(b, off, (int) Math.min(len, available)), position);
      if (n <= 0) {
        throw new IOException("the spooled pack is shorter than written");
      }
      position += n;
      return n;
    }

    @Override
    public void close() {
      try {
        in.close();
      } catch (IOException e) {
        // only read
      }
      synchronized (PackSpool.this) {
        readerClosed = true;
        deleteWhenUnread();
      }
    }
  }
}
