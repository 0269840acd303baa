package dev.pushgate.gateway.api;

/**
 * One step of a call across the boundary, with one job: it decides the call or leaves it to the
 * next step ({@link CallDecision#NEXT}), adding to the {@link ApiExchange} what it learnt.
 */
@FunctionalInterface
interface CallStep {
  CallDecision take(ApiExchange call);

  /** The first decision of {@code steps}, in order; {@link CallDecision#NEXT} when none decides. */
  static CallDecision first(ApiExchange call, java.util.List<CallStep> steps) {
    for (CallStep step : steps) {
      CallDecision d = step.take(call);
      if (d != CallDecision.NEXT) {
        return d;
      }
    }
    return CallDecision.NEXT;
  }
}
