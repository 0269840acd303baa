package dev.pushgate.gateway.api;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.io.Content;

/**
 * Sends an allowed call, made ready, upstream and copies GitHub's answer back as it came, minus
 * hop-by-hop headers and the tokens of download links ({@link DownloadLinks}). Its write token is
 * revoked before the answer's end reaches the run, so no call of the run's races it.
 *
 * <p>An answer of up to {@link #WHOLE} bytes (nearly every API answer) is read whole before the
 * run sees any of it, and then written in one piece: an upstream that fails before its end gives
 * the run a {@code 502}, never a truncated answer under GitHub's status. A longer answer (a
 * tarball, a large file) is streamed; if upstream fails after its start, the run's connection is
 * cut, so its client sees a broken answer, not a short one.
 *
 * <p>Most answers whole within {@link #WHOLE} are written on the upstream client's thread as
 * their end arrives ({@link AnswerOnArrival}); the call's thread, which waits meanwhile, writes
 * the others. The call's slot, body bytes and token are given back by the call's thread either
 * way, once the answer is written ({@link ApiCalls}); a whole answer the run has not read yet
 * holds its bytes in the buffered bytes, or the slot, until Jetty has written it ({@link
 * ApiExchange#writeWhole}), as the boundary's own errors do.
 */
record Forward(String runId, Duration answerTimeout) {
  /** The longest answer read whole before any of it is written. */
  static final int WHOLE = 64 * 1024;

  void send(ApiExchange call, CallDecision.Allowed allowed) {
    Request up = call.upstream();
    AnswerOnArrival arrival = new AnswerOnArrival(this, call, allowed);
    up.send(arrival);
    Object next;
    try {
      next = awaitAnswer(call, arrival);
    } catch (TimeoutException e) {
      if (given(arrival, up, e)) {
        timedOut(call, e);
      }
      return;
    } catch (ClientGoneException e) {
      if (given(arrival, up, e)) {
        call.callback.failed(e);
      }
      return;
    } catch (ExecutionException e) {
      Throwable why = e.getCause() == null ? e : e.getCause();
      if (why instanceof AnswerOnArrival.NotWritten && why.getCause() instanceof RuntimeException r) {
        throw r; // as had it been thrown here: the call fails (ApiCalls)
      }
      if (why instanceof AnswerOnArrival.BrokeOff) {
        up.abort(why);
        notAnswered(call, why, 502, "GitHub's answer broke off before its end");
      } else if (why instanceof TimeoutException) {
        // The connection's idle timeout (the same length) may fire first: the same answer.
        timedOut(call, why);
      } else {
        notAnswered(call, why, 502, "GitHub did not answer pushgate");
      }
      return;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      if (given(arrival, up, e)) {
        call.callback.failed(e);
      }
      return;
    }
    if (next instanceof Response answer) {
      answer(call, allowed, answer, arrival.body());
    }
  }

  /**
   * The call's thread gives up waiting: true, with the request aborted, when it answers the run;
   * false when the answer is being written on arrival, which it then waits for.
   */
  private static boolean given(AnswerOnArrival arrival, Request up, Throwable why) {
    if (arrival.takeFromArrival()) {
      up.abort(why);
      return true;
    }
    arrival.next.exceptionally(x -> null).join();
    return false;
  }

  /**
   * Whether {@code answer} is written to the run on the upstream client's thread as it arrives
   * ({@link AnswerOnArrival}): an answer, not an interim one; one that ends at its head ({@link
   * BodilessAnswer}), or one declared shorter than {@link #WHOLE}, so that it is written without blocking the client's thread; to a call holding no write token (its revocation may wait on GitHub) and whose
   * answer is not read for download links (its values may wait for buffer room).
   */
  static boolean answersOnArrival(ApiExchange call, Response answer) {
    if (answer.getStatus() < 200 || call.holdsWriteToken()) {
      return false;
    }
    if (BodilessAnswer.endsAtItsHead(call.method, answer.getStatus())) {
      return true; // nothing to write but its head, whatever length it names
    }
    if (answer.getHeaders().getLongField("Content-Length") >= WHOLE) {
      return false;
    }
    return !DownloadLinks.rewrites(call.call().path(), accepted(call),
        answer.getHeaders().get("Content-Type"));
  }

  private static String accepted(ApiExchange call) {
    return String.join(",", call.request.getHeaders().getValuesList(HttpHeader.ACCEPT));
  }

  /**
   * Answers the run with GitHub's {@code answer}, its body read from {@code raw}: on the call's
   * thread, or on the upstream client's for an answer written on arrival.
   */
  void answer(ApiExchange call, CallDecision.Allowed allowed, Response answer, InputStream raw) {
    Request up = call.upstream();
    if (answer.getStatus() < 200) {
      // Interim answers the client knows (100, 102, 103) never get here; any other, a 101
      // above all (no call asks to switch protocols), is no answer to pass on: the run would
      // wait for one that never comes.
      up.abort(new IOException("an interim answer " + answer.getStatus()));
      notAnswered(call, new IOException("interim"), 502,
          "GitHub answered " + answer.getStatus() + ", which is not an answer to the call");
      return;
    }
    Optional<String> forbidden = BodilessAnswer.announcedBody(answer);
    if (forbidden.isPresent()) {
      // Its connection is closed already (AnswerOnArrival): the body goes nowhere.
      notAnswered(call, new BodilessAnswer.BodyItsStatusForbids(), 502, forbidden.get());
      return;
    }
    try (raw) {
      copy(call, answer, raw);
      // Every call is in the audit already (docs/github-api.md#audit): a line per call is
      // debug, as the log's layout and redaction cost the boundary a tenth of its CPU.
      ApiBoundary.LOG.debug("run {}: {} {}{} {} upstream {}", runId, call.method,
          call.call().host(), call.path, allowed.audited(), answer.getStatus());
    } catch (DownloadLinks.NotJson e) {
      up.abort(e);
      notAnswered(call, e, 502, e.getMessage());
    } catch (CountedAnswer.Unread e) {
      up.abort(e);
      if (e.status() == 503 && !call.response.isCommitted()) {
        call.response.getHeaders().put(HttpHeader.RETRY_AFTER, ApiBoundary.RETRY_AFTER_SECONDS);
      }
      notAnswered(call, e, e.status(), e.getMessage());
    } catch (IOException e) {
      up.abort(e);
      notAnswered(call, e, 502, "GitHub's answer broke off before its end");
    }
  }

  /**
   * What comes of GitHub's answer once it starts ({@link AnswerOnArrival#next}), looking at the
   * run's connection between waits: a run that has gone stops the wait, and the caller aborts
   * the request upstream.
   */
  private Object awaitAnswer(ApiExchange call, AnswerOnArrival arrival)
      throws InterruptedException, TimeoutException, ExecutionException, ClientGoneException {
    long end = System.nanoTime() + answerTimeout.toNanos();
    while (true) {
      long left = end - System.nanoTime();
      if (left <= 0) {
        if (!arrival.begun()) {
          throw new TimeoutException("no answer within " + answerTimeout);
        }
        // Begun, and being gathered: as for one read here, what bounds its end is the client's
        // idle timeout (a stalled answer fails: BrokeOff).
        left = CLIENT_GONE_EVERY.toNanos();
      }
      try {
        return arrival.next.get(Math.min(left, CLIENT_GONE_EVERY.toNanos()),
            TimeUnit.NANOSECONDS);
      } catch (TimeoutException notYet) {
        if (call.clientGone.getAsBoolean()) {
          throw new ClientGoneException();
        }
      }
    }
  }

  /** How often a call waiting for GitHub looks whether its run's client has gone. */
  private static final Duration CLIENT_GONE_EVERY = Duration.ofSeconds(1);

  /** The run's client went while its call waited for GitHub's answer. */
  private static final class ClientGoneException extends Exception {
    ClientGoneException() {
      super("the run's client has gone", null, false, false);
    }
  }

  private static void copy(ApiExchange call, Response answer, InputStream raw)
      throws IOException {
    Set<LinkReading.Origin> backTo = backTo(call, answer.getRequest());
    String answerType = answer.getHeaders().get("Content-Type");
    String asked = accepted(call);
    // An answer that ends at its head has no links to read, and its headers pass as they came.
    boolean rewritten = !BodilessAnswer.endsAtItsHead(call.method, answer.getStatus())
        && DownloadLinks.rewrites(call.call().path(), asked, answerType);
    if (rewritten && answer.getHeaders().getCSV(HttpHeader.CONTENT_ENCODING, false).stream()
        .anyMatch(coding -> !coding.equalsIgnoreCase("identity"))) {
      // Asked for as is; a compressed answer is never decoded here (no bomb to inflate), so
      // its links cannot be read, and it is not passed on.
      throw new CountedAnswer.Unread(502, "GitHub's answer is compressed (Content-Encoding),"
          + " and pushgate reads this route's answer for its download links and decodes none");
    }
    InputStream in = rewritten ? DownloadLinks.body(call.call().path(), asked, answerType, raw,
        call.answerBudget()) : raw;
    // Nothing is written before this: a failure while reading it is still a 502.
    byte[] first = in.readNBytes(WHOLE);
    call.response.setStatus(answer.getStatus());
    for (HttpField f : answer.getHeaders()) {
      String lower = f.getLowerCaseName();
      if (!ApiBoundary.HOP_BY_HOP.contains(lower)
          || lower.equals("content-length") && !rewritten) {
        // A download link's token is a credential of its own: not for the run.
        call.response.getHeaders().add(f.getName(), lower.equals("location")
            ? DownloadLinks.location(f.getValue(), backTo) : f.getValue());
      }
    }
    if (first.length < WHOLE) {
      call.revokeToken();
      call.writeWhole(ByteBuffer.wrap(first));
      return;
    }
    if (!call.response.getHeaders().contains(HttpHeader.CONTENT_LENGTH)
        && call.request.getConnectionMetaData().getHttpVersion() == HttpVersion.HTTP_1_1) {
      // Chunked even when the run asked to close the connection after the answer: a break is
      // then a missing last chunk the run's client reports, where the end of a close-delimited
      // answer would look like its whole. (HTTP/1.0 has no chunks: its client cannot tell.)
      call.response.getHeaders().put(HttpHeader.TRANSFER_ENCODING, HttpHeaderValue.CHUNKED);
    }
    // Not closed when upstream breaks off: closing ends the answer (its last chunk, or the
    // connection's orderly end) as if it were whole. The caller fails the callback instead,
    // which cuts the run's connection.
    OutputStream out = Content.Sink.asOutputStream(call.response);
    out.write(first);
    in.transferTo(out);
    call.revokeToken();
    out.close();
    call.callback.succeeded();
  }

  /**
   * Where a redirect may send the run with its query: back to the host and port it called, or to
   * the upstream's this call was sent on to (a stand-in's, a GHES host's). Either is where the
   * call itself went, with the run's sentinel; any other host is a download's.
   */
  private static Set<LinkReading.Origin> backTo(ApiExchange call, Request upstream) {
    Set<LinkReading.Origin> origins = new HashSet<>();
    LinkReading.Origin.ofCall(call.call().host()).ifPresent(origins::add);
    origins.add(new LinkReading.Origin(upstream.getHost(), upstream.getPort()));
    return origins;
  }

  private void timedOut(ApiExchange call, Throwable why) {
    notAnswered(call, why, 504, "GitHub did not answer pushgate within "
        + answerTimeout.toSeconds() + " s");
  }

  private void notAnswered(ApiExchange call, Throwable why, int status, String message) {
    // The exception's class only: its text may quote the target, and so a token in a query.
    ApiBoundary.LOG.warn("run {}: GitHub did not answer {} {}: {}", runId, call.method,
        call.path, why.getClass().getSimpleName());
    if (!call.response.isCommitted()) {
      GitHubError.write(call, status, message);
    } else {
      call.callback.failed(why);
    }
  }
}
