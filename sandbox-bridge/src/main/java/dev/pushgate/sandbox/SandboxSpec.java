package dev.pushgate.sandbox;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.pushgate.policy.Mode;
import dev.pushgate.types.UntrustedText;
import java.util.List;

/**
 * What a sandbox launch is given. Field names and defaults follow the sandbox backends reference.
 *
 * @param sessionId stable session id (usually the space id)
 * @param workspaceId owning workspace
 * @param agentId the agent bound to the sandbox, or null
 * @param bindMounts host to guest mounts; the sandbox sees only the host paths listed here
 * @param networkEnabled set from the access-network rule (false only when it resolves to deny);
 *     default true
 * @param egressAllowlist extra allowed egress domains; wildcards as in {@link EgressPolicy};
 *     default empty
 * @param guestWorkdir default working directory inside the sandbox, or null
 * @param mode shapes file-system write rules; default {@link Mode#CHAT}
 * @param protectedPaths host paths never writable inside the sandbox, in any mode; default empty
 * @param runnerStateDirs host directories where the runner keeps state, writable in every mode;
 *     default empty
 * @param execGrantRoots operator-approved trees that reopen the macOS exec block on writable
 *     directories (Linux ignores them); default empty
 */
public record SandboxSpec(
    String sessionId,
    String workspaceId,
    String agentId,
    List<SandboxBindMount> bindMounts,
    boolean networkEnabled,
    List<String> egressAllowlist,
    String guestWorkdir,
    Mode mode,
    List<String> protectedPaths,
    List<String> runnerStateDirs,
    List<String> execGrantRoots) {

  public SandboxSpec {
    requireId(sessionId, "sessionId");
    requireId(workspaceId, "workspaceId");
    if (agentId != null) {
      requireId(agentId, "agentId");
    }
    bindMounts = copy(bindMounts, "bindMounts");
    egressAllowlist = copy(egressAllowlist, "egressAllowlist");
    protectedPaths = copy(protectedPaths, "protectedPaths");
    runnerStateDirs = copy(runnerStateDirs, "runnerStateDirs");
    execGrantRoots = copy(execGrantRoots, "execGrantRoots");
    mode = mode == null ? Mode.CHAT : mode;
  }

  @JsonCreator
  static SandboxSpec fromJson(
      @JsonProperty("sessionId") String sessionId,
      @JsonProperty("workspaceId") String workspaceId,
      @JsonProperty("agentId") String agentId,
      @JsonProperty("bindMounts") List<SandboxBindMount> bindMounts,
      @JsonProperty("networkEnabled") Boolean networkEnabled,
      @JsonProperty("egressAllowlist") List<String> egressAllowlist,
      @JsonProperty("guestWorkdir") String guestWorkdir,
      @JsonProperty("mode") Mode mode,
      @JsonProperty("protectedPaths") List<String> protectedPaths,
      @JsonProperty("runnerStateDirs") List<String> runnerStateDirs,
      @JsonProperty("execGrantRoots") List<String> execGrantRoots) {
    return new SandboxSpec(
        sessionId, workspaceId, agentId, bindMounts,
        networkEnabled == null || networkEnabled, egressAllowlist, guestWorkdir, mode,
        protectedPaths, runnerStateDirs, execGrantRoots);
  }

  static void requireId(String id, String field) {
    if (id == null || id.isBlank()) {
      throw new IllegalArgumentException(field + " is missing");
    }
    if (UntrustedText.hasControl(id)) {
      throw new IllegalArgumentException(field + " has a control character: " + UntrustedText.printable(id));
    }
  }

  private static <T> List<T> copy(List<T> list, String field) {
    if (list == null) {
      return List.of();
    }
    for (T t : list) {
      if (t == null) {
        throw new IllegalArgumentException(field + " has a null entry");
      }
    }
    return List.copyOf(list);
  }
}
