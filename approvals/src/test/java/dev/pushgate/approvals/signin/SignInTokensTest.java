package dev.pushgate.approvals.signin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pushgate.testkit.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SignInTokensTest {
  private final MutableClock clock = new MutableClock(Instant.parse("2026-12-04T10:00:00Z"));
  private final SignInTokens tokens = new SignInTokens(clock, Duration.ofMinutes(5));

  @Test
  void aTokenIsGoodOnceUntilItExpires() {
    String once = tokens.issue().token();
    assertThat(tokens.redeem(once)).isTrue();
    assertThat(tokens.redeem(once)).isFalse();

    String late = tokens.issue().token();
    clock.advance(Duration.ofMinutes(5));
    assertThat(tokens.redeem(late)).isFalse();
  }

  @Test
  void pastTheOutstandingBoundTheOldestLinkIsForgotten() {
    List<String> issued = new ArrayList<>();
    for (int i = 0; i < SignInTokens.MAX_OUTSTANDING + 1; i++) {
      issued.add(tokens.issue().token());
    }
    assertThat(tokens.redeem(issued.get(0))).isFalse();
    assertThat(tokens.redeem(issued.get(1))).isTrue();
    assertThat(tokens.redeem(issued.get(SignInTokens.MAX_OUTSTANDING))).isTrue();
  }

  @Test
  void nothingButTheTokenRedeemsAndTheIssuedValueHidesIt() {
    SignInTokens.Issued issued = tokens.issue();
    assertThat(issued.toString()).doesNotContain(issued.token());
    for (String wrong : new String[] {null, "", SignInTokens.hash(issued.token()),
        issued.token().toUpperCase(), " " + issued.token(), "x".repeat(129)}) {
      assertThat(tokens.redeem(wrong)).as(String.valueOf(wrong)).isFalse();
    }
    assertThat(tokens.redeem(issued.token())).isTrue();
  }

  @Test
  void aLifetimeMustBePositive() {
    assertThatThrownBy(() -> new SignInTokens(clock, Duration.ZERO))
        .hasMessage("a sign-in link's lifetime must be positive: PT0S");
  }
}
