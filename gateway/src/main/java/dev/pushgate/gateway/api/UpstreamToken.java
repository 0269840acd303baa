package dev.pushgate.gateway.api;

import dev.pushgate.gateway.UpstreamException;
import java.util.List;

/**
 * Gets the token the allowed call is sent with: the run's read token, or for a write a token
 * minted for the one repository every action of the call names, held by the exchange until the
 * answer is copied. A call that names no repository, or more than one, gets no write token.
 */
record UpstreamToken(ApiTokens tokens) implements CallStep {
  @Override
  public CallDecision take(ApiExchange call) {
    try {
      if (!call.judgement().needsWriteToken()) {
        call.token(tokens.readToken());
        return CallDecision.NEXT;
      }
      List<String> repos = call.judgement().actions().stream()
          .map(ApiJudgement.ApiAction::repository).distinct().toList();
      if (repos.size() != 1 || repos.get(0) == null) {
        return CallDecision.Denied.byRule("denied", repos.size() > 1
            ? "a write names more than one repository; pushgate mints a token for one"
            : "a write names no repository; pushgate mints no token for it");
      }
      call.lease(tokens.writeToken(repos.get(0)));
      return CallDecision.NEXT;
    } catch (UpstreamException e) {
      return CallDecision.Denied.byRule("denied", e.getMessage());
    }
  }
}
