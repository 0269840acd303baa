package dev.pushgate.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pushgate.types.UntrustedText;
import dev.pushgate.types.Secret;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ValuesTest {
  private static final Instant AT = Instant.parse("2026-12-02T11:00:00Z");

  @Test
  void installationTokenHidesTheTokenAndCopiesPermissions() {
    Map<String, String> permissions = new HashMap<>(Map.of("contents", "read"));
    InstallationToken token = new InstallationToken(Secret.of("ghs_abc"), AT, 7, permissions);
    permissions.put("issues", "write");

    assertThat(token.permissions()).isEqualTo(Map.of("contents", "read"));
    assertThat(token.toString()).isEqualTo("InstallationToken[token=Secret[***],"
        + " expiresAt=2026-12-02T11:00:00Z, repositoryId=7, permissions={contents=read}]");
  }

  @Test
  void installationTokenNeedsARepositoryId() {
    assertThatThrownBy(() -> new InstallationToken(Secret.of("t"), AT, 0, Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("repository id must be positive: 0");
  }

  @Test
  void installationTokenRefusesNullPermissionLevels() {
    Map<String, String> permissions = new HashMap<>();
    permissions.put("contents", null);

    assertThatThrownBy(() -> new InstallationToken(Secret.of("t"), AT, 1, permissions))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("permission level");
  }

  @Test
  void brokerExceptionAppendsTheRequestId() {
    BrokerException with = new BrokerException(BrokerException.Reason.FORBIDDEN, "refused", "AB:1");
    BrokerException without = new BrokerException(BrokerException.Reason.FORBIDDEN, "refused");

    assertThat(with.getMessage()).isEqualTo("refused (request id AB:1)");
    assertThat(with.requestId()).contains("AB:1");
    assertThat(without.getMessage()).isEqualTo("refused");
    assertThat(without.requestId()).isEmpty();
  }

  @Test
  void githubTextIsMadeOneLineAndBounded() {
    assertThat(UntrustedText.oneLine("  a\r\n\tb  c ", 100)).isEqualTo("a b  c");
    assertThat(UntrustedText.oneLine("x".repeat(300), 200)).hasSize(201).endsWith("…");
    assertThat(Text.requestId("CAFE:1:2")).isEqualTo("CAFE:1:2");
    assertThat(Text.requestId("bad id\r\nX: y")).isNull();
  }
}
