package dev.pushgate.sandbox;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a launch returns.
 *
 * @param sessionId the session
 * @param backend the backend actually running (a null stored value reads as {@code none})
 * @param state lifecycle state
 * @param error set exactly when {@code state} is {@code error}. The reference types it as any
 *     object; here it is the message, because a Java exception does not survive JSON.
 * @param details the adapter's bookkeeping (working directory, pid, profile path, …); values may be
 *     null
 */
public record SandboxHandle(
    String sessionId,
    SandboxBackend backend,
    SandboxState state,
    String error,
    Map<String, Object> details) {

  public SandboxHandle {
    SandboxSpec.requireId(sessionId, "sessionId");
    backend = backend == null ? SandboxBackend.NONE : backend;
    if (state == null) {
      throw new IllegalArgumentException("a sandbox handle needs a state");
    }
    if ((state == SandboxState.ERROR) != (error != null)) {
      throw new IllegalArgumentException("a sandbox handle has an error exactly in state error");
    }
    if (details == null) {
      details = Map.of();
    } else {
      for (String k : details.keySet()) {
        if (k == null) {
          throw new IllegalArgumentException("a sandbox handle detail has a null key");
        }
      }
      // Map.copyOf refuses null values, which the reference allows.
      details = Collections.unmodifiableMap(new LinkedHashMap<>(details));
    }
  }
}
