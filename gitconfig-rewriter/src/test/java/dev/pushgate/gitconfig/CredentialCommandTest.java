package dev.pushgate.gitconfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CredentialCommandTest {
  private static final String CREDENTIAL = "pgr_secretRunCredential";
  private static final String FILL = "protocol=https\nhost=github.com\npath=acme/widget.git\n\n";

  @TempDir Path dir;

  /** An appliance stand-in: answers a token to the run's credential only, records the headers. */
  private record Endpoint(HttpServer server, List<String> authorizations) implements AutoCloseable {
    static Endpoint start() throws Exception {
      List<String> seen = new CopyOnWriteArrayList<>();
      HttpServer server =
          HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      server.createContext("/v1/run/credential", exchange -> {
        String auth = exchange.getRequestHeaders().getFirst("Authorization");
        seen.add(String.valueOf(auth));
        boolean ok = ("Bearer " + CREDENTIAL).equals(auth);
        byte[] body = (ok ? "username=x-access-token\npassword=ghs_current\n" : "no")
            .getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(ok ? 200 : 401, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(body);
        }
      });
      server.start();
      return new Endpoint(server, seen);
    }

    String base() {
      return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @Override
    public void close() {
      server.stop(0);
    }
  }
  @Test
  void readsTheTokenFromTheNamedVariableForGetOnly() {
    assertThat(CredentialCommand.fromEnvironment("PUSHGATE_READ_TOKEN").helperValue())
        .isEqualTo("!f() { test \"$1\" = get || exit 0; test -n \"$PUSHGATE_READ_TOKEN\" || exit 0; "
            + "printf 'username=x-access-token\\npassword=%s\\n' \"$PUSHGATE_READ_TOKEN\"; }; f");
    assertThat(CredentialCommand.fromEnvironment())
        .isEqualTo(CredentialCommand.fromEnvironment("GH_TOKEN"));
  }

  @Test
  void refusesAVariableNameThatIsNotOne() {
    assertThatThrownBy(() -> CredentialCommand.fromEnvironment("GH_TOKEN; rm -rf ~"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("not an environment variable name: GH_TOKEN; rm -rf ~");
    assertThatThrownBy(() -> CredentialCommand.fromEnvironment("1X"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("not an environment variable name: 1X");
  }

  @Test
  void refusesAnEmptySnippetAndOneGitCannotStore() {
    assertThatThrownBy(() -> CredentialCommand.shell(" \t"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("credential helper snippet is empty");
    assertThatThrownBy(() -> CredentialCommand.shell("echo\0"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a git config value cannot contain a NUL character (at index 4)");
  }

  @Test
  void aCallerSnippetRunsThroughTheShell() {
    assertThat(CredentialCommand.shell("curl -s http://127.0.0.1:7070/token").helperValue())
        .isEqualTo("!curl -s http://127.0.0.1:7070/token");
  }

  @Test
  void theGatewayHelperCarriesNoCredentialAndReadsItFromTheRunsConfig() throws Exception {
    try (Endpoint endpoint = Endpoint.start()) {
      CredentialCommand helper =
          CredentialCommand.askingGateway(endpoint.base(), endpoint.base() + "/v1/run/credential");
      // git runs the snippet as sh -c: whatever it holds, every local user can read
      assertThat(helper.helperValue()).doesNotContain("pgr_").contains("-H @-");
      Path config = dir.resolve("gitconfig");
      GitConfigFile.write(config,
          RunGitConfig.of(endpoint.base(), CREDENTIAL).withCredentialCommand(helper));

      RealGit.Result r = new RealGit(dir).globalConfig(config).with("GH_TOKEN", "ghs_stale")
          .runWithInput(dir, FILL, "credential", "fill").ok();

      assertThat(r.out()).contains("password=ghs_current\n");
      assertThat(endpoint.authorizations()).containsExactly("Bearer " + CREDENTIAL);
    }
  }

  @Test
  void theGatewayHelperFallsBackToTheLaunchTokenWhenTheApplianceRefuses() throws Exception {
    try (Endpoint endpoint = Endpoint.start()) {
      CredentialCommand helper =
          CredentialCommand.askingGateway(endpoint.base(), endpoint.base() + "/v1/run/credential");
      Path config = dir.resolve("gitconfig");
      GitConfigFile.write(config,
          RunGitConfig.of(endpoint.base(), "pgr_notTheRuns").withCredentialCommand(helper));

      RealGit.Result r = new RealGit(dir).globalConfig(config).with("GH_TOKEN", "ghs_atLaunch")
          .runWithInput(dir, FILL, "credential", "fill").ok();

      assertThat(r.out()).contains("password=ghs_atLaunch\n");
      assertThat(endpoint.authorizations()).containsExactly("Bearer pgr_notTheRuns");
    }
  }

  @Test
  void theGatewayHelperRefusesAUrlThatWouldBreakItsQuoting() {
    assertThatThrownBy(() -> CredentialCommand.askingGateway("http://127.0.0.1:7070/a'b",
        "http://127.0.0.1:7070/v1/run/credential"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("gateway base URL must not contain a quote: http://127.0.0.1:7070/a'b");
    assertThatThrownBy(() -> CredentialCommand.askingGateway("http://127.0.0.1:7070",
        "http://127.0.0.1:7070/v1/run/credential'"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("credential endpoint URL must not contain a quote: "
            + "http://127.0.0.1:7070/v1/run/credential'");
  }
}
