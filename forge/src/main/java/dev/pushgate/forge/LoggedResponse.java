package dev.pushgate.forge;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.function.IntConsumer;

/**
 * A response that has its request recorded in the request log once, with the status it answers,
 * before its body starts: a client that has read the whole answer then always finds its request in
 * the log. (Recorded after the handler returned, the entry could come after the client had its
 * answer and asked for the log, and an end-to-end test read a stale last entry.) Every forge
 * handler sets the status before it writes a body.
 */
final class LoggedResponse extends HttpServletResponseWrapper {
  private final IntConsumer record;
  private boolean recorded;

  LoggedResponse(HttpServletResponse rsp, IntConsumer record) {
    super(rsp);
    this.record = record;
  }

  /** Records the request with the status set so far, once; also for an answer with no body. */
  void recordOnce() {
    if (!recorded) {
      recorded = true;
      record.accept(getStatus());
    }
  }

  @Override
  public ServletOutputStream getOutputStream() throws IOException {
    recordOnce();
    return super.getOutputStream();
  }

  @Override
  public PrintWriter getWriter() throws IOException {
    recordOnce();
    return super.getWriter();
  }
}
