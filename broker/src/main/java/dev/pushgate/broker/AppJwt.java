package dev.pushgate.broker;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.pushgate.broker.BrokerException.Reason;
import dev.pushgate.types.Secret;
import java.security.interfaces.RSAPrivateKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Date;
import java.util.Objects;

/**
 * The App's own credential: an RS256 JWT with {@code iat} backdated a minute (GitHub's advice
 * against clock drift) and {@code exp} nine minutes ahead (GitHub allows ten). One JWT serves
 * every caller until a minute before it expires; callers that arrive together share one signing.
 */
final class AppJwt {
  static final Duration BACKDATE = Duration.ofSeconds(60);
  static final Duration LIFETIME = Duration.ofMinutes(9);
  static final Duration RENEW_BEFORE_EXPIRY = Duration.ofSeconds(60);

  private final String issuer;
  private final JWSSigner signer;
  private final Clock clock;

  // guarded by this
  private Secret current;
  private Instant signedAt;
  private Instant expiresAt;

  AppJwt(String issuer, RSAPrivateKey key, Clock clock) {
    this(issuer, new RSASSASigner(key), clock);
  }

  AppJwt(String issuer, JWSSigner signer, Clock clock) {
    this.issuer = Objects.requireNonNull(issuer, "issuer");
    this.signer = Objects.requireNonNull(signer, "signer");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  synchronized Secret token() throws BrokerException {
    Instant now = clock.instant().truncatedTo(ChronoUnit.SECONDS);
    // A clock stepped back past the signing time gets a fresh JWT rather than one "from the future".
    if (current != null && !now.isBefore(signedAt)
        && now.isBefore(expiresAt.minus(RENEW_BEFORE_EXPIRY))) {
      return current;
    }
    Instant exp = now.plus(LIFETIME);
    JWTClaimsSet claims = new JWTClaimsSet.Builder()
        .issuer(issuer)
        .issueTime(Date.from(now.minus(BACKDATE)))
        .expirationTime(Date.from(exp))
        .build();
    SignedJWT jwt = new SignedJWT(
        new JWSHeader.Builder(JWSAlgorithm.RS256).type(JOSEObjectType.JWT).build(), claims);
    try {
      jwt.sign(signer);
    } catch (JOSEException e) {
      // the cause is not chained: a signer's message has no business in an operator's log
      throw new BrokerException(Reason.BAD_KEY, "could not sign the GitHub App JWT with the App's"
          + " private key (" + e.getClass().getSimpleName() + ")");
    }
    current = Secret.of(jwt.serialize());
    signedAt = now;
    expiresAt = exp;
    return current;
  }

  /** Drops the cached JWT, after GitHub rejected it. */
  synchronized void forget() {
    current = null;
  }
}
