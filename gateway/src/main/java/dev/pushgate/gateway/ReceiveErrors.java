package dev.pushgate.gateway;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Collections;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import org.eclipse.jgit.errors.CorruptObjectException;
import org.eclipse.jgit.errors.InvalidObjectIdException;
import org.eclipse.jgit.errors.PackProtocolException;
import org.eclipse.jgit.errors.UnpackException;
import org.eclipse.jgit.http.server.ReceivePackErrorHandler;
import org.eclipse.jgit.transport.PacketLineIn;
import org.eclipse.jgit.transport.ServiceMayNotContinueException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A push that breaks the protocol gets a 400 with what was wrong, not a 500 and a stack trace. By
 * then nothing has moved: commands are judged only after the whole pack was received and checked.
 * The push is told why ({@link Push#unreceived}), so that the filter audits its commands.
 */
final class ReceiveErrors implements ReceivePackErrorHandler {
  private static final Logger log = LoggerFactory.getLogger(ReceiveErrors.class);

  private static final String INTERNAL = "the push failed inside the gateway; nothing was pushed";

  private final long maxBodyBytes;

  /** {@code maxBodyBytes}: how much of a failed push's body is read to let git see the answer. */
  ReceiveErrors(long maxBodyBytes) {
    this.maxBodyBytes = maxBodyBytes;
  }

  @Override
  public void receive(HttpServletRequest req, HttpServletResponse rsp, ReceivePackRunnable r)
      throws IOException {
    try {
      r.receive();
    } catch (PackProtocolException | UnpackException | CorruptObjectException e) {
      Reach.Undecided undecided = undecidedIn(e);
      if (undecided != null) {
        refuseUndecided(req, rsp, undecided);
        return;
      }
      Throwable timeout = timeoutIn(e);
      if (timeout != null) {
        timedOut(req, rsp, timeout);
        return;
      }
      String why = Forwarder.oneLine(e.getMessage());
      if (e instanceof UnpackException && e.getCause() != null) {
        // "Exception while parsing pack stream" alone does not say what was wrong with the pack.
        Throwable c = e.getCause();
        why += ": " + (c instanceof IOException ? "" : c.getClass().getSimpleName() + " ")
            + Forwarder.oneLine(c.getMessage());
      }
      log.info("malformed push refused: {}", why);
      unreceived(req, e, why);
      if (why.contains("wanted 'old new ref'")) {
        why = "a command is not '<old-id> <new-id> <ref>' with a valid ref name";
      }
      answer(req, rsp, HttpServletResponse.SC_BAD_REQUEST, "malformed push request: " + why);
    } catch (ServiceMayNotContinueException e) {
      answer(req, rsp, e.getStatusCode(), Forwarder.oneLine(e.getMessage()));
    } catch (IOException e) {
      Reach.Undecided undecided = undecidedIn(e);
      Throwable timeout = timeoutIn(e);
      if (undecided != null) {
        refuseUndecided(req, rsp, undecided);
      } else if (timeout != null) {
        timedOut(req, rsp, timeout);
      } else if (e instanceof PacketLineIn.InputOverLimitIOException) {
        log.info("malformed push refused: its command list is too long");
        answer(req, rsp, HttpServletResponse.SC_BAD_REQUEST, "malformed push request: the push's"
            + " command list is too long; push fewer refs at a time");
      } else if (isBadInput(e)) {
        log.info("malformed push refused: {}", Forwarder.oneLine(e.getMessage()));
        unreceived(req, e, Forwarder.oneLine(e.getMessage()));
        answer(req, rsp, HttpServletResponse.SC_BAD_REQUEST,
            "malformed push request: " + Forwarder.oneLine(e.getMessage()));
      } else {
        log.warn("push failed: {}", e.toString());
        unreceivedAs(req, RefusalCode.INTERNAL, INTERNAL);
        answer(req, rsp, HttpServletResponse.SC_INTERNAL_SERVER_ERROR, INTERNAL);
      }
    } catch (IllegalArgumentException e) {
      // JGit turns a command whose id is not hexadecimal into a PackProtocolException, but lets
      // a non-ASCII id through as a bare "Not ASCII string: ..." (found by GatewayFuzzTest).
      String why = Forwarder.oneLine(e.getMessage());
      log.info("malformed push refused: {}", why);
      if (why.startsWith("Not ASCII string") || e instanceof InvalidObjectIdException) {
        why = "an object id is not 40 hexadecimal digits";
      }
      answer(req, rsp, HttpServletResponse.SC_BAD_REQUEST, "malformed push request: " + why);
    } catch (RuntimeException e) {
      log.warn("push failed: {}", e.toString());
      unreceivedAs(req, RefusalCode.INTERNAL, INTERNAL);
      answer(req, rsp, HttpServletResponse.SC_INTERNAL_SERVER_ERROR, INTERNAL);
    }
  }

  /** A client that stopped sending: a read timeout ended the push. */
  private static void timedOut(HttpServletResponse rsp, Throwable e) throws IOException {
    log.info("push timed out: {}", Forwarder.oneLine(e.getMessage()));
    answer(rsp, HttpServletResponse.SC_REQUEST_TIMEOUT, timedOutReason(e));
  }

  private static void timedOut(HttpServletRequest req, HttpServletResponse rsp, Throwable e)
      throws IOException {
    unreceivedAs(req, RefusalCode.ABANDONED, timedOutReason(e));
    timedOut(rsp, e);
  }

  private static String timedOutReason(Throwable e) {
    return "the push request timed out (" + Forwarder.oneLine(e.getMessage())
        + "); nothing was pushed";
  }

  /**
   * Tells the push on {@code req}, if JGit got one, why its pack was not received, for the
   * audit: a pack cut short (the client went part way) is abandoned, anything else malformed.
   */
  private static void unreceived(HttpServletRequest req, Throwable e, String why) {
    if (cutShort(e)) {
      unreceivedAs(req, RefusalCode.ABANDONED,
          "the pack did not arrive whole (" + why + "); nothing was pushed");
    } else {
      unreceivedAs(req, RefusalCode.INVALID_COMMAND,
          "malformed push request: " + why + "; nothing was pushed");
    }
  }

  /**
   * A thin pack whose bases could not be shown reached within the push's budget ({@link
   * Reach.Undecided}): not a malformed push, and not one naming an object nobody has. Every
   * command is refused in git's status report, {@code ! [remote rejected] <ref> (Control Center
   * policy: …)}, saying what to do; the filter audits them. A list the filter could not read is
   * answered with the same words as a whole.
   */
  private void refuseUndecided(HttpServletRequest req, HttpServletResponse rsp,
      Reach.Undecided e) throws IOException {
    String why = undecidedReason(e);
    log.info("push refused: {}", why);
    unreceivedAs(req, RefusalCode.RULE_DENIED, why);
    Optional<JudgedCommands> judged = Push.of(req).flatMap(Push::judged);
    if (judged.isEmpty() || rsp.isCommitted()) {
      answer(req, rsp, HttpServletResponse.SC_SERVICE_UNAVAILABLE, Refusals.render(why));
      return;
    }
    EarlyRefusal.Request refused = EarlyRefusal.unreceived(judged.get().list(),
        new EarlyRefusal.Unreceived(RefusalCode.RULE_DENIED, why));
    rsp.reset();
    EarlyRefusal.respond(rsp, refused,
        Collections.nCopies(refused.refused().size(), Refusals.render(why)));
  }

  /** What git shows of {@link Reach.Undecided} for a push, and what to do. */
  static String undecidedReason(Reach.Undecided e) {
    return "the thin pack's delta bases could not be checked: " + e.getMessage()
        + "; nothing was pushed. The gateway is compacting this repository's cache with a bitmap"
        + " index, which decides it at once: push again in a minute, or push with --no-thin";
  }

  private static Reach.Undecided undecidedIn(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof Reach.Undecided u) {
        return u;
      }
    }
    return null;
  }

  private static void unreceivedAs(HttpServletRequest req, RefusalCode code, String reason) {
    Push.of(req).ifPresent(p -> p.unreceived(code, reason));
  }

  /** True when the body ended before the pack did. */
  private static boolean cutShort(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.io.EOFException) {
        return true;
      }
    }
    return false;
  }

  /**
   * The timeout behind {@code e}, if a timeout ended the read: JGit's own read timeout, or
   * Jetty's idle timeout, whichever fired first.
   */
  /**
   * Answers {@code e} as a timed-out push if a timeout ended the read, as when it happens inside
   * JGit; false for any other failure, which the caller answers.
   */
  static boolean answerIfTimedOut(HttpServletResponse rsp, IOException e) throws IOException {
    Throwable timeout = timeoutIn(e);
    if (timeout == null) {
      return false;
    }
    timedOut(rsp, timeout);
    return true;
  }

  private static Throwable timeoutIn(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof InterruptedIOException || t instanceof TimeoutException) {
        return t;
      }
    }
    return null;
  }

  /** JGit reports a broken pkt-line or a short body as a plain IOException. */
  private static boolean isBadInput(IOException e) {
    String m = e.getMessage() == null ? "" : e.getMessage();
    return e instanceof java.io.EOFException || m.startsWith("Invalid packet line header")
        || m.startsWith("Short read") || m.contains("expected") && m.contains("got");
  }

  /**
   * Answers after reading what is left of the body (bounded): a server that answers and closes
   * while git is still sending makes git print "Broken pipe" instead of the answer.
   */
  private void answer(HttpServletRequest req, HttpServletResponse rsp, int status, String message)
      throws IOException {
    if (rsp.isCommitted()) {
      return; // git has its answer in-band already
    }
    try {
      EarlyRefusal.discard(req.getInputStream(), maxBodyBytes);
    } catch (IOException e) {
      // the client went away, or the body was already closed: answer all the same
    }
    answer(rsp, status, message);
  }

  private static void answer(HttpServletResponse rsp, int status, String message)
      throws IOException {
    if (rsp.isCommitted()) {
      return;
    }
    rsp.reset();
    PlainAnswer.send(rsp, status, message);
  }
}
