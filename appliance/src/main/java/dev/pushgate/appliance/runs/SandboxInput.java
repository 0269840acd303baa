package dev.pushgate.appliance.runs;

import java.util.List;
import java.util.Map;

/**
 * The sandbox part of a run request: the run's paths, who runs in it, and the launcher's
 * environment for the agent (sanitised before anything is started). All optional but {@code
 * workdir}.
 */
public record SandboxInput(
    String workdir,
    String agentConfigDir,
    String reposDir,
    String attachmentsDir,
    List<String> protectedPaths,
    List<String> runnerStateDirs,
    List<String> execGrantRoots,
    String runner,
    String backend,
    List<String> egressAllowlist,
    Map<String, String> env) {

  public SandboxInput {
    protectedPaths = protectedPaths == null ? List.of() : List.copyOf(protectedPaths);
    runnerStateDirs = runnerStateDirs == null ? List.of() : List.copyOf(runnerStateDirs);
    execGrantRoots = execGrantRoots == null ? List.of() : List.copyOf(execGrantRoots);
    egressAllowlist = egressAllowlist == null ? List.of() : List.copyOf(egressAllowlist);
    env = env == null ? Map.of() : Map.copyOf(env);
  }
}
