package dev.pushgate.forge;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.pushgate.testkit.MutableClock;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.interfaces.RSAPublicKey;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Date;
import org.junit.jupiter.api.Test;

/** The forge's App JWT check: a JWT presented again is not verified again, but still expires. */
class ForgeAppJwtTest {
  private static final String EXPIRED = "'Expiration time' claim ('exp') must be a numeric value"
      + " representing the future time at which the assertion expires";

  private final MutableClock clock =
      new MutableClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));
  private final KeyPair app = keyPair();
  private final ForgeAppJwt check = new ForgeAppJwt((RSAPublicKey) app.getPublic(), clock);

  @Test
  void aJwtPresentedAgainIsVerifiedOnce() throws Exception {
    String jwt = sign(app, clock.instant(), Duration.ofMinutes(9));

    for (int i = 0; i < 5; i++) {
      assertThat(check.problem(jwt)).isEmpty();
    }

    assertThat(check.signaturesVerified()).isEqualTo(1);
  }

  @Test
  void aJwtPresentedAgainIsRefusedFromTheSecondItExpires() throws Exception {
    String jwt = sign(app, clock.instant(), Duration.ofMinutes(9));
    assertThat(check.problem(jwt)).isEmpty();

    clock.advance(Duration.ofMinutes(9).minusSeconds(1));
    assertThat(check.problem(jwt)).isEmpty();
    clock.advance(Duration.ofSeconds(1));

    assertThat(check.problem(jwt)).contains(EXPIRED);
  }

  @Test
  void theNextJwtIsVerifiedAndTheOneBeforeStillExpires() throws Exception {
    String first = sign(app, clock.instant(), Duration.ofMinutes(9));
    assertThat(check.problem(first)).isEmpty();
    clock.advance(Duration.ofMinutes(8));
    String second = sign(app, clock.instant(), Duration.ofMinutes(9));

    assertThat(check.problem(second)).isEmpty();
    clock.advance(Duration.ofMinutes(1));

    assertThat(check.problem(first)).contains(EXPIRED);
    assertThat(check.problem(second)).isEmpty();
  }

  @Test
  void aJwtWithTheSameClaimsSignedByAnotherKeyIsRefusedAfterAGoodOne() throws Exception {
    Instant now = clock.instant();
    String good = sign(app, now, Duration.ofMinutes(9));
    String forged = sign(keyPair(), now, Duration.ofMinutes(9));
    assertThat(check.problem(good)).isEmpty();

    assertThat(check.problem(forged)).contains(ForgeAppJwt.NOT_DECODED);
    assertThat(check.problem(good)).isEmpty();
  }

  private static String sign(KeyPair key, Instant now, Duration lifetime) throws Exception {
    JWTClaimsSet claims = new JWTClaimsSet.Builder().issuer(ForgeAppKey.APP_ID)
        .issueTime(Date.from(now.minusSeconds(60))).expirationTime(Date.from(now.plus(lifetime)))
        .build();
    SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.RS256), claims);
    jwt.sign(new RSASSASigner(key.getPrivate()));
    return jwt.serialize();
  }

  private static KeyPair keyPair() {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
      g.initialize(2048);
      return g.generateKeyPair();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
