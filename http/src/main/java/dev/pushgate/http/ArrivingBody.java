package dev.pushgate.http;

import dev.pushgate.types.BoundedBody;
import java.util.concurrent.CompletableFuture;
import org.eclipse.jetty.io.Content;

/**
 * A request body read as it arrives, on no thread of its own, and never past a limit ({@link
 * BoundedBody.Collector}): the chunk that would pass it fails the read (and the request's
 * content), whatever the body announced. The control API's hooks and the GitHub API boundary
 * read bodies with it, each bounding the whole read with a deadline of its own ({@code
 * orTimeout} on the result): a read whose result is already settled (the deadline passed) takes
 * nothing more from the source, so nothing is counted against a budget after its holder let go.
 */
public final class ArrivingBody implements Runnable {
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
  public static CompletableFuture<byte[]> read(Content.Source source, int max) {
    return read(source, -1, max, BoundedBody.Budget.NONE);
  }

  /**
   * The whole body, each chunk taken from {@code budget} as it arrives; {@code declared} is the
   * body's declared length (negative when none was given), refused at once when over {@code max}.
   * A failure is {@link BoundedBody.Refused} (too large, over the budget) or why the body could
   * not be read.
   */
  public static CompletableFuture<byte[]> read(Content.Source source, long declared, int max,
      BoundedBody.Budget budget) {
    ArrivingBody body;
    try {
      body = new ArrivingBody(source, new BoundedBody.Collector(declared, max, budget));
    } catch (BoundedBody.Refused e) {
      return CompletableFuture.failedFuture(e);
    }
    body.run();
    return body.result;
  }

  @Override
  public void run() {
    while (!result.isDone()) {
      Content.Chunk chunk = source.read();
      if (chunk == null) {
        source.demand(this);
        return;
      }
      if (Content.Chunk.isFailure(chunk)) {
        result.completeExceptionally(chunk.getFailure());
        return;
      }
      boolean last = chunk.isLast();
      try {
        kept.add(chunk.getByteBuffer()); // copied straight into what is kept
        if (last) {
          result.complete(kept.bytes());
          return;
        }
      } catch (BoundedBody.Refused refused) {
        if (!result.isDone()) { // settled meanwhile: the deadline's answer is on its way
          source.fail(refused);
        }
        result.completeExceptionally(refused);
        return;
      } finally {
        chunk.release();
      }
    }
  }
}
