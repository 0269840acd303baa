package dev.pushgate.gateway.api;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.client.InputStreamResponseListener;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.io.Content;

/**
 * GitHub's answer to one call, as the upstream client's thread receives it. An answer {@link
 * Forward} may write from there ({@link Forward#answersOnArrival}: whole within {@link
 * Forward#WHOLE} bytes, no write token to revoke, no links to read) is gathered and written to
 * the run on that thread as soon as its end arrives: the call's thread, waiting, is no longer
 * woken twice (the answer's head, then its body) before the run gets it (issue 33: two thread
 * hand-offs on every call's path). Any other answer, or one that turns out longer, is handed to
 * the call's thread as a stream, as before ({@link #next}).
 *
 * <p>Either thread writes the answer, never both: the call's thread that gives up (GitHub too
 * slow, the run gone) first takes the answer from this one ({@link #takeFromArrival}); when it
 * cannot, the answer is being written and it waits for that instead.
 */
final class AnswerOnArrival implements Response.Listener {
  /** What {@link #next} holds once the answer was written on arrival. */
  static final Object WRITTEN = new Object();

  /** An upstream failure after the answer's head: its body broke off. */
  static final class BrokeOff extends Exception {
    private static final long serialVersionUID = 1L;

    BrokeOff(Throwable cause) {
      super("GitHub's answer broke off before its end", cause, false, false);
    }
  }

  /** Writing the answer on arrival failed: the call's thread fails the call, as it would have. */
  static final class NotWritten extends Exception {
    private static final long serialVersionUID = 1L;

    NotWritten(RuntimeException cause) {
      super("the answer could not be written", cause, false, false);
    }
  }

  private enum Mode { UNKNOWN, GATHER, STREAM, HEAD_ONLY }

  private final Forward forward;
  private final ApiExchange call;
  private final CallDecision.Allowed allowed;
  /** What the call's thread reads a streamed answer from. */
  final InputStreamResponseListener stream = new InputStreamResponseListener();
  /**
   * {@link #WRITTEN}, or the answer whose body the call's thread reads from {@link #stream}, or
   * the failure before any answer.
   */
  final CompletableFuture<Object> next = new CompletableFuture<>();
  private final AtomicBoolean taken = new AtomicBoolean();
  /** GitHub's answer has begun (its head is in); read by the call's thread. */
  private volatile boolean begun;
  /** The answer ended at its head ({@link BodilessAnswer}): it has no body to read. */
  private volatile boolean headOnly;
  // Read and written by the client's callbacks alone, which Jetty runs one at a time.
  private Mode mode = Mode.UNKNOWN;
  private byte[] gathered;
  private int length;

  AnswerOnArrival(Forward forward, ApiExchange call, CallDecision.Allowed allowed) {
    this.forward = forward;
    this.call = call;
    this.allowed = allowed;
  }

  /**
   * The call's thread gives up on the answer: true when it may answer the run itself; false when
   * the answer is being written on arrival (wait for {@link #next} then).
   */
  boolean takeFromArrival() {
    return taken.compareAndSet(false, true);
  }

  /** Whether GitHub's answer has begun: the answer timeout is for its start. */
  boolean begun() {
    return begun;
  }

  /** What the call's thread reads the answer's body from, once {@link #next} holds the answer. */
  InputStream body() {
    return headOnly ? InputStream.nullInputStream() : stream.getInputStream();
  }

  @Override
  public void onHeaders(Response answer) {
    begun = true;
    if (BodilessAnswer.endsAtItsHead(call.method, answer.getStatus())) {
      endAtHead(answer);
      return;
    }
    if (!Forward.answersOnArrival(call, answer)) {
      streamFrom(answer);
      return;
    }
    mode = Mode.GATHER;
    long declared = answer.getHeaders().getLongField("Content-Length");
    gathered = new byte[(int) (declared >= 0 ? declared : 8 * 1024)];
  }

  @Override
  public void onContent(Response answer, Content.Chunk chunk, Runnable demander) {
    if (mode == Mode.HEAD_ONLY) {
      return; // none is read: its connection was closed at its head
    }
    if (mode == Mode.STREAM) {
      stream.onContent(answer, chunk, demander);
      return;
    }
    ByteBuffer bytes = chunk.getByteBuffer();
    int n = bytes.remaining();
    if (length + n >= Forward.WHOLE) {
      // Not shorter than an answer written whole: the call's thread streams it, these bytes
      // first. (One of exactly WHOLE bytes is streamed too: its write would block, and no
      // upstream client thread may wait on a run that does not read.)
      byte[] before = Arrays.copyOf(gathered, length);
      gathered = null;
      streamFrom(answer);
      stream.onContent(answer, Content.Chunk.from(ByteBuffer.wrap(before), false, () -> { }),
          () -> { });
      stream.onContent(answer, chunk, demander);
      return;
    }
    if (length + n > gathered.length) {
      gathered = Arrays.copyOf(gathered, Math.min(Forward.WHOLE, Math.max(length + n,
          2 * gathered.length)));
    }
    bytes.get(gathered, length, n);
    length += n;
    demander.run();
  }

  /**
   * The whole answer is its head: its connection is closed now, so that nothing GitHub sends
   * after the head is read as another call's answer, and it is written with no body, here or by
   * the call's thread, as a gathered answer would be.
   */
  private void endAtHead(Response answer) {
    mode = Mode.HEAD_ONLY;
    headOnly = true;
    answer.abort(new BodilessAnswer.EndedAtItsHead());
    if (Forward.answersOnArrival(call, answer)) {
      writeHere(answer, new byte[0], 0);
    } else {
      next.complete(answer);
    }
  }

  private void writeHere(Response answer, byte[] bytes, int n) {
    if (taken.compareAndSet(false, true)) {
      try {
        forward.answer(call, allowed, answer, new ByteArrayInputStream(bytes, 0, n));
        next.complete(WRITTEN);
      } catch (RuntimeException e) {
        next.completeExceptionally(new NotWritten(e));
      }
    }
  }

  private void streamFrom(Response answer) {
    mode = Mode.STREAM;
    stream.onHeaders(answer);
    next.complete(answer);
  }

  @Override
  public void onSuccess(Response answer) {
    if (mode == Mode.STREAM) {
      stream.onSuccess(answer);
    } else if (mode != Mode.HEAD_ONLY) {
      writeHere(answer, gathered == null ? new byte[0] : gathered, length);
    }
  }

  @Override
  public void onFailure(Response answer, Throwable failure) {
    if (mode == Mode.HEAD_ONLY) {
      return; // its own abort: the answer was whole at its head
    }
    if (mode == Mode.STREAM) {
      stream.onFailure(answer, failure);
    } else {
      next.completeExceptionally(mode == Mode.GATHER ? new BrokeOff(failure) : failure);
    }
  }

  @Override
  public void onComplete(Result result) {
    if (mode == Mode.HEAD_ONLY) {
      return;
    }
    if (mode == Mode.STREAM) {
      stream.onComplete(result);
    } else if (result.isFailed()) {
      Throwable failure = result.getFailure();
      next.completeExceptionally(mode == Mode.GATHER ? new BrokeOff(failure) : failure);
    }
  }
}
