package dev.pushgate.gateway;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Before anything else of the gateway: a run's git requests beyond its slots are refused at once
 * ({@code 429}, or for a fetch git's {@code ERR} line: {@link GitErrorLine}), so that one run's parallel or stalled pushes cannot take the request threads every
 * run shares. Requests without a known credential pass on to {@link GatewayFilter}'s 401.
 */
final class RunConcurrencyFilter implements Filter {
  private static final Logger log = LoggerFactory.getLogger(RunConcurrencyFilter.class);

  private final RunAuthenticator authenticator;
  private final RunSlots slots;

  RunConcurrencyFilter(RunAuthenticator authenticator, RunSlots slots) {
    this.authenticator = authenticator;
    this.slots = slots;
  }

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    Optional<RunContext> run = GatewayFilter.credentialOf((HttpServletRequest) request)
        .flatMap(authenticator::authenticate);
    if (run.isEmpty()) {
      chain.doFilter(request, response);
      return;
    }
    Optional<RunSlots.Slot> slot = slots.tryTake(run.get().runId());
    if (slot.isEmpty()) {
      log.info("run {}: git request refused, {} already in flight", run.get().runId(),
          slots.perRun());
      HttpServletRequest req = (HttpServletRequest) request;
      HttpServletResponse rsp = (HttpServletResponse) response;
      rsp.setHeader("Connection", "close");
      String why = Refusals.render("this run already has " + slots.perRun()
          + " git requests in flight; nothing was done, wait for those to finish and retry");
      if (GitErrorLine.isFetch(req)) {
        GitErrorLine.send(req, rsp, why); // git prints no text of a 429 to a fetch's POST
      } else {
        GatewayFilter.text(rsp, 429, why);
      }
      return;
    }
    try (RunSlots.Slot held = slot.get()) {
      chain.doFilter(request, response);
    }
  }
}
