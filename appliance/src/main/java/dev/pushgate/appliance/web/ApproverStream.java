package dev.pushgate.appliance.web;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pushgate.appliance.approvals.Answer;
import dev.pushgate.appliance.approvals.ApprovalDesk;
import dev.pushgate.appliance.approvals.Question;
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
 * The page's server-sent events: pending questions, then each question asked and each ended, as
 * they happen. While it is open the page counts as a connected approver, like {@code pushgate
 * approvals watch}. It ends when the browser goes away, the session ends or the desk closes.
 */
final class ApproverStream {
  private static final String CLOSED = new String("closed");

  private final ApprovalDesk desk;
  private final ObjectMapper json;
  private final Duration keepalive;

  ApproverStream(ApprovalDesk desk, ObjectMapper json, Duration keepalive) {
    this.desk = desk;
    this.json = json;
    this.keepalive = keepalive;
  }

  /** Blocks this request's thread until the stream ends; {@code live} is asked every keepalive. */
  void serve(Response response, Callback callback, BooleanSupplier live) {
    response.setStatus(200);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/event-stream; charset=utf-8");
    BlockingQueue<String> events = new LinkedBlockingQueue<>();
    ApprovalDesk.Listener listener = new ApprovalDesk.Listener() {
      @Override
      public void onAsked(Question q) {
        events.add(event("question", WebJson.question(json, q)));
      }

      @Override
      public void onEnded(Question q, Answer a) {
        events.add(event("ended", WebJson.ended(json, q, a)));
      }

      @Override
      public void onClosed() {
        events.add(CLOSED);
      }
    };
    try (AutoCloseable connection = desk.connect(listener)) {
      write(response, ": connected\n\n");
      for (Question q : desk.pending(null)) {
        write(response, event("question", WebJson.question(json, q)));
      }
      write(response, "event: connected\ndata: {}\n\n");
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
      callback.succeeded(); // the browser went away
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
