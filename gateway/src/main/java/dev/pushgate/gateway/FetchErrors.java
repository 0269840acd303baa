package dev.pushgate.gateway;

import static org.eclipse.jgit.http.server.GitSmartHttpTools.sendError;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.eclipse.jgit.errors.PackProtocolException;
import org.eclipse.jgit.http.server.UploadPackErrorHandler;
import org.eclipse.jgit.transport.ServiceMayNotContinueException;
import org.eclipse.jgit.transport.WantNotValidException;
import org.eclipse.jgit.transport.resolver.ServiceNotEnabledException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fetch's errors answered as JGit's own handler answers them, but a want the gateway does not
 * serve ({@link ReachableWants}), or any other break of the protocol by the client, logged as one
 * line: it is a refusal, not an internal error, and a client retrying (or a run probing object
 * ids) must not write a stack trace per request.
 */
final class FetchErrors implements UploadPackErrorHandler {
  private static final Logger log = LoggerFactory.getLogger(FetchErrors.class);

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
      log.warn("fetch failed inside the gateway", e);
      answer(req, rsp, e, e instanceof ServiceNotEnabledException ? e.getMessage() : null);
    }
  }

  private static void answer(HttpServletRequest req, HttpServletResponse rsp, Throwable e,
      String textForGit) throws IOException {
    if (!rsp.isCommitted()) {
      rsp.reset();
      sendError(req, rsp, UploadPackErrorHandler.statusCodeForThrowable(e), textForGit);
    }
  }
}
