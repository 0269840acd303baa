package dev.pushgate.sandbox;

import dev.pushgate.policy.Mode;
import dev.pushgate.types.UntrustedText;
import java.util.List;

/**
 * One run, as the planner needs it. {@link #builder} fills the defaults.
 *
 * @param sessionId stable session id (required)
 * @param workspaceId owning workspace (required)
 * @param agentId the agent, or null
 * @param mode the conversation's mode
 * @param runner what runs the agent; gives the dispatch
 * @param paths the run's host paths
 * @param requestedBackend the backend asked for ({@code native}, {@code none}, {@code microvm},
 *     {@code docker}), or null to let the host decide
 * @param networkEnabled false when the access-network rule resolves to deny
 * @param egressAllowlist extra egress entries
 * @param denyWriteGlobs file-name write denies and whether the rules set them
 * @param envAdditions the run's own variables ({@code GIT_CONFIG_GLOBAL}, {@code GH_TOKEN}, proxy
 *     variables); they win over the host's
 */
public record SandboxRequest(
    String sessionId,
    String workspaceId,
    String agentId,
    Mode mode,
    Runner runner,
    RunPaths paths,
    String requestedBackend,
    boolean networkEnabled,
    List<String> egressAllowlist,
    DenyWriteGlobs denyWriteGlobs,
    EnvironmentVariables envAdditions) {

  public SandboxRequest {
    id(sessionId, "sessionId", true);
    id(workspaceId, "workspaceId", true);
    id(agentId, "agentId", false);
    if (mode == null) {
      mode = Mode.CHAT;
    }
    if (runner == null) {
      throw new SandboxRequestException("runner", "runner is missing");
    }
    if (paths == null) {
      throw new SandboxRequestException("workdir", "workdir is missing");
    }
    if (egressAllowlist == null) {
      egressAllowlist = List.of();
    }
    for (int i = 0; i < egressAllowlist.size(); i++) {
      if (egressAllowlist.get(i) == null) {
        throw new SandboxRequestException(
            "egressAllowlist[" + i + "]", "egressAllowlist[" + i + "] is missing");
      }
    }
    egressAllowlist = List.copyOf(egressAllowlist);
    if (denyWriteGlobs == null) {
      denyWriteGlobs = DenyWriteGlobs.DEFAULT;
    }
    if (envAdditions == null) {
      envAdditions = EnvironmentVariables.empty();
    }
  }

  private static void id(String value, String field, boolean required) {
    if (value == null) {
      if (required) {
        throw new SandboxRequestException(field, field + " is missing");
      }
      return;
    }
    if (value.isBlank()) {
      throw new SandboxRequestException(field, field + " is empty");
    }
    if (UntrustedText.hasControl(value)) {
      throw new SandboxRequestException(
          field, field + " has a control character: " + UntrustedText.printable(value));
    }
  }

  public static Builder builder(String sessionId, String workspaceId, Runner runner, RunPaths paths) {
    return new Builder(sessionId, workspaceId, runner, paths);
  }

  /** Fills the defaults: chat mode, network on, no extra egress, default glob denies. */
  public static final class Builder {
    private final String sessionId;
    private final String workspaceId;
    private final Runner runner;
    private final RunPaths paths;
    private String agentId;
    private Mode mode = Mode.CHAT;
    private String requestedBackend;
    private boolean networkEnabled = true;
    private List<String> egressAllowlist = List.of();
    private DenyWriteGlobs denyWriteGlobs = DenyWriteGlobs.DEFAULT;
    private EnvironmentVariables envAdditions = EnvironmentVariables.empty();

    private Builder(String sessionId, String workspaceId, Runner runner, RunPaths paths) {
      this.sessionId = sessionId;
      this.workspaceId = workspaceId;
      this.runner = runner;
      this.paths = paths;
    }

    public Builder agentId(String agentId) {
      this.agentId = agentId;
      return this;
    }

    public Builder mode(Mode mode) {
      this.mode = mode;
      return this;
    }

    public Builder requestedBackend(String requestedBackend) {
      this.requestedBackend = requestedBackend;
      return this;
    }

    public Builder networkEnabled(boolean networkEnabled) {
      this.networkEnabled = networkEnabled;
      return this;
    }

    public Builder egressAllowlist(List<String> egressAllowlist) {
      this.egressAllowlist = egressAllowlist;
      return this;
    }

    public Builder denyWriteGlobs(DenyWriteGlobs denyWriteGlobs) {
      this.denyWriteGlobs = denyWriteGlobs;
      return this;
    }

    public Builder envAdditions(EnvironmentVariables envAdditions) {
      this.envAdditions = envAdditions;
      return this;
    }

    public SandboxRequest build() {
      return new SandboxRequest(
          sessionId, workspaceId, agentId, mode, runner, paths, requestedBackend, networkEnabled,
          egressAllowlist, denyWriteGlobs, envAdditions);
    }
  }
}
