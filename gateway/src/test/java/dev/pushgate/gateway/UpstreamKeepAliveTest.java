package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The gateway keeps an idle connection to the git host for a minute, not the JDK's 5 s, so that a
 * push soon after a fetch, or after a pack that took git a while, pays no new handshake upstream;
 * an operator's own {@code -Dhttp.keepAlive.time.server} stands.
 */
class UpstreamKeepAliveTest {
  private String before;

  @BeforeEach
  void save() {
    before = System.getProperty(UpstreamKeepAlive.PROPERTY);
  }

  @AfterEach
  void restore() {
    if (before == null) {
      System.clearProperty(UpstreamKeepAlive.PROPERTY);
    } else {
      System.setProperty(UpstreamKeepAlive.PROPERTY, before);
    }
  }

  @Test
  void idleUpstreamConnectionsAreKeptForAMinuteRatherThanTheJdksFiveSeconds() {
    System.clearProperty(UpstreamKeepAlive.PROPERTY);

    UpstreamKeepAlive.apply();

    assertThat(System.getProperty("http.keepAlive.time.server")).isEqualTo("60");
  }

  @Test
  void anOperatorsOwnSettingIsLeftAsItIs() {
    System.setProperty(UpstreamKeepAlive.PROPERTY, "15");

    UpstreamKeepAlive.apply();

    assertThat(System.getProperty("http.keepAlive.time.server")).isEqualTo("15");
  }
}
