package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.types.RepoSlug;
import dev.pushgate.types.Secret;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import org.eclipse.jetty.server.Server;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The gateway's threads end with its handler: nothing is left running after the appliance. */
class GatewayTest {
  @TempDir Path dir;

  @Test
  void stoppingTheHandlerStopsEveryThreadOfTheGateway() throws Exception {
    GatewayConfig config = new GatewayConfig(GatewayConfig.GITHUB_HOST, dir, 1024,
        Duration.ofSeconds(5), Duration.ofSeconds(5), Clock.systemUTC());
    UpstreamAccess upstream = new UpstreamAccess() {
      @Override
      public String remoteUrl(RepoSlug repo) {
        return "http://127.0.0.1:9/" + repo + ".git";
      }

      @Override
      public Secret readToken(RunContext run, RepoSlug repo) throws UpstreamException {
        throw new UpstreamException("not reachable");
      }

      @Override
      public WriteTokenLease mintWriteToken(RunContext run, RepoSlug repo, boolean workflows)
          throws UpstreamException {
        throw new UpstreamException("not reachable");
      }
    };
    Gateway gateway =
        new Gateway(config, RunAuthenticator.NONE, upstream, new RecordingAudit(), null, null);
    Server server = new Server();
    server.setHandler(gateway.handler());
    server.start();
    assertThat(gateway.threads().closed()).isFalse();

    server.stop();

    assertThat(gateway.threads().closed()).isTrue();
  }
}
