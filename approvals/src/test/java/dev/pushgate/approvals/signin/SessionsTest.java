package dev.pushgate.approvals.signin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.testkit.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SessionsTest {
  private final MutableClock clock = new MutableClock(Instant.parse("2026-12-04T10:00:00Z"));
  private final Sessions sessions =
      new Sessions(clock, Duration.ofMinutes(30), Duration.ofHours(12));

  @Test
  void eachSessionHasItsOwnIdAndCsrfTokenAndHidesThem() {
    Sessions.Started a = sessions.start();
    Sessions.Started b = sessions.start();
    assertThat(a.id()).isNotEqualTo(b.id()).matches("[A-Za-z0-9_-]{43}");
    assertThat(a.session().csrf()).isNotEqualTo(b.session().csrf()).isNotEqualTo(a.id());
    assertThat(a.toString() + a.session()).doesNotContain(a.id())
        .doesNotContain(a.session().csrf());
    assertThat(sessions.find(a.id())).containsSame(a.session());
    assertThat(a.session().csrfMatches(b.session().csrf())).isFalse();
    assertThat(a.session().csrfMatches(null)).isFalse();
    assertThat(a.session().csrfMatches(a.session().csrf())).isTrue();
  }

  @Test
  void aStreamsCheckDoesNotKeepASessionAlive() {
    Sessions.Started a = sessions.start();
    clock.advance(Duration.ofMinutes(20));
    assertThat(sessions.live(a.session())).isTrue();
    clock.advance(Duration.ofMinutes(10));
    assertThat(sessions.live(a.session())).isFalse();
    assertThat(sessions.find(a.id())).isEmpty();
  }

  @Test
  void pastTheBoundTheOldestSessionEndsAndSignOutEndsOne() {
    List<Sessions.Started> started = new ArrayList<>();
    for (int i = 0; i < Sessions.MAX_SESSIONS + 1; i++) {
      started.add(sessions.start());
    }
    assertThat(sessions.find(started.get(0).id())).isEmpty();
    assertThat(sessions.find(started.get(1).id())).isPresent();
    sessions.end(started.get(1).id());
    assertThat(sessions.find(started.get(1).id())).isEmpty();
    assertThat(sessions.live(started.get(1).session())).isFalse();
  }
}
