package dev.pushgate.approvals;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Blocker;
import org.eclipse.jetty.util.Callback;

/**
 * An approver's server-sent events, for the approvals page and the control API's {@code GET
 * /v1/approvals/stream} alike: pending questions, then each question asked and each ended, as
 * they happen, a comment line every keepalive. While it is open its approver counts as
 * connected. It ends when the client goes away, the desk closes, or {@code live} says no more
 * (the page's session ended: {@code event: signedout}).
 */
public final class ApproverStream {
  private static final String CLOSED = new String("closed");

  /** How a surface shows a question and its end as an event's JSON data. */
  public interface Shape {
    JsonNode asked(Question q);

    JsonNode ended(Question q, Answer a);
  }

  private final ApprovalDesk desk;
  private final ObjectMapper json;
  private final Duration keepalive;
  private final Shape shape;
  private final boolean saysConnected;

  /**
   * @param saysConnected whether an {@code event: connected} follows the pending questions (the
   *     page waits for it before it shows "no pending question")
   */
  public ApproverStream(ApprovalDesk desk, ObjectMapper json, Duration keepalive, Shape shape,
      boolean saysConnected) {
    this.desk = desk;
    this.json = json;
    this.keepalive = keepalive;
    this.shape = shape;
    this.saysConnected = saysConnected;
  }

  /** Blocks this request's thread until the stream ends; {@code live} is asked every keepalive. */
  public void serve(Response response, Callback callback, BooleanSupplier live) {
    response.setStatus(200);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/event-stream; charset=utf-8");
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-cache");
    BlockingQueue<String> events = new LinkedBlockingQueue<>();
    ApprovalDesk.Listener listener = new ApprovalDesk.Listener() {
      @Override
      public void onAsked(Question q) {
        events.add(event("question", shape.asked(q)));
      }

      @Override
      public void onEnded(Question q, Answer a) {
        events.add(event("ended", shape.ended(q, a)));
      }

      @Override
      public void onClosed() {
        events.add(CLOSED);
      }
    };
    try (AutoCloseable connection = desk.connect(listener)) {
      write(response, ": connected\n\n");
      for (Question q : desk.pending(null)) {
        write(response, event("question", shape.asked(q)));
      }
      if (saysConnected) {
        write(response, "event: connected\ndata: {}\n\n");
      }
      while (true) {
        String e = events.poll(keepalive.toMillis(), TimeUnit.MILLISECONDS);
        if (e == CLOSED) {
          write(response, "event: closed\ndata: {}\n\n");
          response.write(true, null, callback);
          return;
        }
        if (!live.getAsBoolean()) {
          write(response, "event: signedout\ndata: {}\n\n");
          response.write(true, null, callback);
          return;
        }
        write(response, e == null ? ": keepalive\n\n" : e);
      }
    } catch (IOException e) {
      callback.succeeded(); // the client went away
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      callback.failed(e);
    } catch (Exception e) {
      callback.failed(e);
    }
  }

  private String event(String name, JsonNode data) {
    try {
      // Jackson escapes line breaks inside strings: one data line, no forged events.
      return "event: " + name + "\ndata: " + json.writeValueAsString(data) + "\n\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void write(Response response, String text) throws IOException {
    try (Blocker.Callback cb = Blocker.callback()) {
      response.write(false, ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)), cb);
      cb.block();
    }
  }
}
