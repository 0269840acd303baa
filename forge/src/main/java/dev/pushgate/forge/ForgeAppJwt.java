package dev.pushgate.forge;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.crypto.RSASSAVerifier;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.interfaces.RSAPublicKey;
import java.text.ParseException;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The forge's check of an App JWT, with GitHub's answers: an RS256 signature by the App's key,
 * {@code exp} in the future and at most ten minutes (and a little skew) ahead, {@code iat} not
 * ahead, the App's id as issuer.
 *
 * <p>The broker sends one JWT for up to ten minutes (it signs anew a minute before expiry), so
 * the forge verifies a JWT's signature once and keeps its claims: a request that presents the
 * same JWT again skips the RSA verification and the parse, but its times are checked against
 * the clock each time, so a kept JWT is refused from the second it expires, as before. Only the
 * last verified JWT is kept; it is compared in constant time.
 */
final class ForgeAppJwt {
  static final String NOT_DECODED = "A JSON web token could not be decoded";

  /** A JWT whose signature was verified, and its claims. */
  private record Verified(byte[] compact, JWTClaimsSet claims) {}

  private final JWSVerifier verifier;
  private final Clock clock;
  private final AtomicLong signaturesVerified = new AtomicLong();
  private volatile Verified last;

  ForgeAppJwt(RSAPublicKey key, Clock clock) {
    this.verifier = new RSASSAVerifier(key);
    this.clock = clock;
  }

  /** Why {@code jwt} is refused, in GitHub's words; empty when it is good now. */
  Optional<String> problem(String jwt) {
    JWTClaimsSet claims = verifiedClaims(jwt);
    if (claims == null || claims.getExpirationTime() == null || claims.getIssueTime() == null) {
      return Optional.of(NOT_DECODED);
    }
    Instant now = clock.instant();
    Instant exp = claims.getExpirationTime().toInstant();
    Instant iat = claims.getIssueTime().toInstant();
    if (!exp.isAfter(now)) {
      return Optional.of("'Expiration time' claim ('exp') must be a numeric value representing"
          + " the future time at which the assertion expires");
    }
    if (exp.isAfter(now.plusSeconds(600 + 30))) {
      return Optional.of("'Expiration time' claim ('exp') is too far in the future");
    }
    if (iat.isAfter(now.plusSeconds(60))) {
      return Optional.of("'Issued at' claim ('iat') must be an Integer representing the time"
          + " that the assertion was issued");
    }
    if (!ForgeAppKey.APP_ID.equals(claims.getIssuer())) {
      return Optional.of("Integration not found");
    }
    return Optional.empty();
  }

  /** How many signatures were verified so far: once per distinct JWT presented in a row. */
  long signaturesVerified() {
    return signaturesVerified.get();
  }

  /** The claims of a JWT the App's key signed; null when it is not one. */
  private JWTClaimsSet verifiedClaims(String jwt) {
    byte[] compact = jwt.getBytes(StandardCharsets.US_ASCII);
    Verified seen = last;
    if (seen != null && MessageDigest.isEqual(seen.compact(), compact)) {
      return seen.claims();
    }
    try {
      SignedJWT signed = SignedJWT.parse(jwt);
      signaturesVerified.incrementAndGet();
      if (!JWSAlgorithm.RS256.equals(signed.getHeader().getAlgorithm())
          || !signed.verify(verifier)) {
        return null;
      }
      JWTClaimsSet claims = signed.getJWTClaimsSet();
      last = new Verified(compact, claims);
      return claims;
    } catch (ParseException | JOSEException e) {
      return null;
    }
  }
}
