package dev.pushgate.appliance.control;

import dev.pushgate.types.BoundedBody;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import org.eclipse.jetty.io.Content;

/**
 * A request body read as it arrives, on no thread of its own, and never past a limit ({@link
 * BoundedBody.Collector}): the chunk that would pass it fails the read (and the request's
 * content), whatever the body announced.
 */
final class ArrivingBody implements Runnable {
  private final Content.Source source;
  private final BoundedBody.Collector kept;
  private final CompletableFuture<byte[]> result = new CompletableFuture<>();

  private ArrivingBody(Content.Source source, BoundedBody.Collector kept) {
    this.source = source;
    this.kept = kept;
  }

  /**
   * The whole body, or a failure: {@link BoundedBody.Refused} (too large), or why the body could
   * not be read.
   */
  static CompletableFuture<byte[]> read(Content.Source source, int max) {
    ArrivingBody body;
    try {
      body = new ArrivingBody(source, new BoundedBody.Collector(-1, max,
          BoundedBody.Budget.NONE));
    } catch (BoundedBody.Refused e) {
      return CompletableFuture.failedFuture(e);
    }
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
      byte[] copy = new byte[bytes.remaining()];
      bytes.get(copy);
      boolean last = chunk.isLast();
      chunk.release();
      try {
        kept.add(copy, 0, copy.length);
      } catch (BoundedBody.Refused tooLarge) {
        source.fail(tooLarge);
        result.completeExceptionally(tooLarge);
        return;
      }
      if (last) {
        result.complete(kept.bytes());
        return;
      }
    }
  }
}
