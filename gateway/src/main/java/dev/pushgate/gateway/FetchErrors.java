package dev.pushgate.gateway;

import static org.eclipse.jgit.http.server.GitSmartHttpTools.sendError;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Optional;
import org.eclipse.jgit.errors.PackProtocolException;
import org.eclipse.jgit.http.server.UploadPackErrorHandler;
import org.eclipse.jgit.transport.PacketLineIn;
import org.eclipse.jgit.transport.ServiceMayNotContinueException;
import org.eclipse.jgit.transport.WantNotValidException;
import org.eclipse.jgit.transport.resolver.ServiceNotEnabledException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fetch's errors answered as JGit's own handler answers them, but a want the gateway does not
 * serve ({@link ReachableWants}), or any other break of the protocol by the client (a malformed
 * pkt-line among them), logged as one line: it is a refusal, not an internal error, and a client retrying (or a run probing object
 * ids) must not write a stack trace per request.
 */
final class FetchErrors implements UploadPackErrorHandler {
  private static final Logger log = LoggerFactory.getLogger(FetchErrors.class);

  /** What git shows for a request whose pkt-lines JGit cannot read (its bytes not echoed). */
  static final String MALFORMED = "the fetch request is malformed: a pkt-line's length header is"
      + " not valid; git sends no such request";

  @Override
  public void upload(HttpServletRequest req, HttpServletResponse rsp, UploadPackRunnable r)
      throws IOException {
    try {
      r.upload();
    } catch (ServiceMayNotContinueException e) {
      if (!e.isOutput() && !rsp.isCommitted()) {
        rsp.reset();
        sendError(req, rsp, e.getStatusCode(), e.getMessage());
      }
    } catch (WantNotValidException e) {
      log.info("fetch refused: {}", Forwarder.oneLine(e.getMessage()));
      answer(req, rsp, e, e.getMessage());
    } catch (PackProtocolException e) {
      // The client broke the protocol (a push's command list sent to git-upload-pack, say): its
      // error, answered in git's words, not the gateway's.
      log.info("fetch refused: {}", Forwarder.oneLine(e.getMessage()));
      answer(req, rsp, e, e.getMessage());
    } catch (Throwable e) {
      Optional<IOException> malformed = malformedPktLine(e);
      if (malformed.isPresent()) {
        log.info("fetch refused: malformed request: {}",
            Forwarder.oneLine(malformed.get().getMessage()));
        answer(req, rsp, e, MALFORMED);
        return;
      }
      log.warn("fetch failed inside the gateway", e);
      answer(req, rsp, e, e instanceof ServiceNotEnabledException ? e.getMessage() : null);
    }
  }

  /**
   * JGit's {@code PacketLineIn.readLength} fails a pkt-line header that is not a length (not hex,
   * or one that overruns the line before it) with a plain {@link IOException}, thrown as it is
   * by v0's negotiation and wrapped in an {@link java.io.UncheckedIOException} by v2's request
   * parser: the client's malformed request, found by where JGit threw it rather than by its
   * message. (A request past a limit and a client gone are other IOException classes.)
   */
  static Optional<IOException> malformedPktLine(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t.getClass() == IOException.class && thrownReadingALength(t)) {
        return Optional.of((IOException) t);
      }
    }
    return Optional.empty();
  }

  private static boolean thrownReadingALength(Throwable t) {
    StackTraceElement[] frames = t.getStackTrace();
    for (int i = 0; i < Math.min(frames.length, 4); i++) {
      if (frames[i].getClassName().equals(PacketLineIn.class.getName())
          && frames[i].getMethodName().equals("readLength")) {
        return true;
      }
    }
    return false;
  }

  /**
   * Answers a request the gateway read as malformed before JGit ({@link FetchRequestBody}) as
   * JGit's own malformed pkt-lines are answered: one log line, and git's ERR line.
   */
  static void refuseMalformed(HttpServletRequest req, HttpServletResponse rsp, String why)
      throws IOException {
    log.info("fetch refused: malformed request: {}", why);
    GitErrorLine.send(req, rsp, "the fetch request is malformed: " + why
        + "; git sends no such request");
  }

  /**
   * Answers a request asking for what JGit's upload-pack does not serve ({@link
   * FetchRequestBody#unserved}), which JGit would fail with an internal error: one log line, and
   * git's ERR line saying what is not served.
   */
  static void refuseUnserved(HttpServletRequest req, HttpServletResponse rsp, String what)
      throws IOException {
    log.info("fetch refused: not served: {}", what);
    GitErrorLine.send(req, rsp, "the gateway does not serve " + what);
  }

  /**
   * Answers a request naming an object id JGit would fail on that no branch or tag reaches
   * ({@link FetchRequestBody.NotReached}), absent or not alike: one log line, git's ERR line.
   */
  static void refuseNotReached(HttpServletRequest req, HttpServletResponse rsp, String why)
      throws IOException {
    log.info("fetch refused: {}", why);
    GitErrorLine.send(req, rsp, why);
  }

  private static void answer(HttpServletRequest req, HttpServletResponse rsp, Throwable e,
      String textForGit) throws IOException {
    if (!rsp.isCommitted()) {
      rsp.reset();
      sendError(req, rsp, UploadPackErrorHandler.statusCodeForThrowable(e), textForGit);
    }
  }
}
