package dev.pushgate.gateway.api;

/** Answers only for the API host names the run's proxy sends here; any other is 421. */
record InterceptedHost(ApiUpstream upstream) implements CallStep {
  @Override
  public CallDecision take(ApiExchange call) {
    if (upstream.intercepts(call.host)) {
      return CallDecision.NEXT;
    }
    return new CallDecision.Refused(421, "pushgate answers here only for "
        + String.join(", ", upstream.hostNames()));
  }
}
