package dev.pushgate.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.io.content.AsyncContent;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.Test;

class ArrivingBodyTest {
  @Test
  void aBodyWithinTheLimitIsReadWholeAsItArrives() throws Exception {
    AsyncContent content = new AsyncContent();
    CompletableFuture<byte[]> body = ArrivingBody.read(content, 10);
    assertThat(body).isNotDone();
    content.write(false, ByteBuffer.wrap("{\"a\":".getBytes(StandardCharsets.UTF_8)), Callback.NOOP);
    assertThat(body).isNotDone();
    content.write(true, ByteBuffer.wrap("1}".getBytes(StandardCharsets.UTF_8)), Callback.NOOP);
    assertThat(new String(body.get(5, TimeUnit.SECONDS), StandardCharsets.UTF_8))
        .isEqualTo("{\"a\":1}");
  }

  @Test
  void theChunkThatPassesTheLimitFailsTheReadWhateverTheBodyAnnounced() throws Exception {
    AsyncContent content = new AsyncContent();
    CompletableFuture<byte[]> body = ArrivingBody.read(content, 10);
    content.write(false, ByteBuffer.wrap(new byte[8]), Callback.NOOP);
    content.write(false, ByteBuffer.wrap(new byte[8]), Callback.NOOP);
    assertThatThrownBy(() -> body.get(5, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(dev.pushgate.types.BoundedBody.Refused.class)
        .cause().hasMessage("the body is larger than 10 bytes");
    // The source is failed: nothing more is read from it.
    assertThat(Content.Chunk.isFailure(content.read())).isTrue();
  }

  @Test
  void aDeclaredLengthOverTheLimitIsRefusedBeforeAnyOfItIsRead() {
    AsyncContent content = new AsyncContent();
    CompletableFuture<byte[]> body = ArrivingBody.read(content, 11, 10,
        dev.pushgate.types.BoundedBody.Budget.NONE);
    assertThatThrownBy(() -> body.get(5, TimeUnit.SECONDS))
        .hasCauseInstanceOf(dev.pushgate.types.BoundedBody.Refused.class)
        .cause().hasMessage("the body is larger than 10 bytes");
  }

  /**
   * The API boundary's deadline settles the read; what still arrives is not taken. (A body of no
   * declared length is held in one buffer, its capacity taken: 256 bytes at first.)
   */
  @Test
  void aReadSettledBeforeItsBodyEndedTakesNothingMoreFromTheBudget() throws Exception {
    AsyncContent content = new AsyncContent();
    java.util.concurrent.atomic.AtomicInteger taken =
        new java.util.concurrent.atomic.AtomicInteger();
    CompletableFuture<byte[]> body = ArrivingBody.read(content, -1, 1000, n -> {
      taken.addAndGet(n);
      return true;
    });
    content.write(false, ByteBuffer.wrap(new byte[3]), Callback.NOOP);
    assertThat(taken).hasValue(256);

    body.orTimeout(1, TimeUnit.MILLISECONDS);
    assertThatThrownBy(() -> body.get(5, TimeUnit.SECONDS))
        .hasCauseInstanceOf(java.util.concurrent.TimeoutException.class);
    content.write(true, ByteBuffer.wrap(new byte[300]), Callback.NOOP); // would grow the buffer

    assertThat(taken).hasValue(256);
  }
}
