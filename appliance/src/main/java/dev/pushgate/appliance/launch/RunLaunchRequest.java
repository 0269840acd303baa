package dev.pushgate.appliance.launch;

import dev.pushgate.sandbox.Bridge;
import dev.pushgate.sandbox.LaunchRequest;
import dev.pushgate.sandbox.SandboxBackend;
import dev.pushgate.sandbox.SandboxFile;
import dev.pushgate.sandbox.SandboxLaunchException;
import dev.pushgate.sandbox.SandboxPlan;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;

/**
 * A run's command as {@code pushgate exec} and {@code POST /v1/runs/{id}/launch} both launch it:
 * under the run's plan, with its git config and the {@code pushgate-hook} script handed in, and
 * (under bubblewrap) the gateway socket bridged to the gateway's port on the sandbox's loopback.
 */
public final class RunLaunchRequest {
  private RunLaunchRequest() {}

  /**
   * @param gitConfig the run's git config, handed in at the same path
   * @param hookScript a copy of {@code pushgate-hook} on the host, handed in at {@link
   *     HookScript#GUEST_PATH}
   * @param gatewayUrl the gateway's URL as the run's git config names it (its port is bridged)
   * @param gatewaySocket the gateway's Unix socket, or null when the appliance offers none
   * @throws SandboxLaunchException when the plan needs the gateway socket and there is none
   */
  public static LaunchRequest of(SandboxPlan plan, List<String> command, Path gitConfig,
      Path hookScript, String gatewayUrl, Path gatewaySocket) throws SandboxLaunchException {
    LaunchRequest request = LaunchRequest.of(plan, command)
        .withFile(SandboxFile.samePath(gitConfig))
        .withFile(SandboxFile.program(hookScript, HookScript.GUEST_PATH));
    request = withApiCaFiles(request, plan);
    if (plan.effectiveBackend() == SandboxBackend.NATIVE) {
      if (gatewaySocket == null) {
        throw new SandboxLaunchException(
            "the appliance offers no gateway socket for sandboxes; upgrade it", List.of());
      }
      request = request.withBridge(new Bridge("gateway", gatewaySocket,
          URI.create(gatewayUrl).getPort()));
    }
    return request;
  }

  /** The system's CA bundle, which a sandbox sees replaced by the run's bundle. */
  static final String SYSTEM_BUNDLE = "/etc/ssl/certs/ca-certificates.crt";

  /**
   * The run CA and bundle of the run's GitHub API boundary (docs/github-api.md), handed in at the
   * paths the run's variables name; under bubblewrap the bundle also stands in for the system's,
   * for the programs that read it without looking at any variable.
   */
  private static LaunchRequest withApiCaFiles(LaunchRequest request, SandboxPlan plan) {
    String bundle = plan.env().get("SSL_CERT_FILE");
    String ca = plan.env().get("NODE_EXTRA_CA_CERTS");
    if (bundle == null || ca == null || !java.nio.file.Files.isRegularFile(Path.of(bundle))) {
      return request;
    }
    request = request.withFile(SandboxFile.samePath(Path.of(bundle)))
        .withFile(SandboxFile.samePath(Path.of(ca)));
    if (plan.effectiveBackend() == SandboxBackend.NATIVE
        && java.nio.file.Files.isRegularFile(Path.of(SYSTEM_BUNDLE))) {
      request = request.withFile(new SandboxFile(Path.of(bundle), SYSTEM_BUNDLE));
    }
    return request;
  }
}
