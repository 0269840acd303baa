package dev.pushgate.appliance.control;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import org.eclipse.jetty.io.Content;

/**
 * A request body read as it arrives, on no thread of its own, and never past a limit: the chunk
 * that would pass it fails the read (and the request's content), whatever the body announced.
 */
final class BoundedBody implements Runnable {
  /** The body was larger than the limit; nothing of it past the limit was kept. */
  static final class TooLarge extends IOException {
    TooLarge(int max) {
      super("the body is larger than " + max + " bytes");
    }
  }

  private final Content.Source source;
  private final int max;
  private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
  private final CompletableFuture<byte[]> result = new CompletableFuture<>();

  private BoundedBody(Content.Source source, int max) {
    this.source = source;
    this.max = max;
  }

  /** The whole body, or a failure: {@link TooLarge}, or why the body could not be read. */
  static CompletableFuture<byte[]> read(Content.Source source, int max) {
    BoundedBody body = new BoundedBody(source, max);
    body.run();
    return body.result;
  }

  @Override
  public void run() {
    while (true) {
      Content.Chunk chunk = source.read();
      if (chunk == null) {
        source.demand(this);
        return;
      }
      if (Content.Chunk.isFailure(chunk)) {
        result.completeExceptionally(chunk.getFailure());
        return;
      }
      ByteBuffer bytes = chunk.getByteBuffer();
      if (kept.size() + bytes.remaining() > max) {
        chunk.release();
        TooLarge tooLarge = new TooLarge(max);
        source.fail(tooLarge);
        result.completeExceptionally(tooLarge);
        return;
      }
      byte[] copy = new byte[bytes.remaining()];
      bytes.get(copy);
      kept.write(copy, 0, copy.length);
      boolean last = chunk.isLast();
      chunk.release();
      if (last) {
        result.complete(kept.toByteArray());
        return;
      }
    }
  }
}
