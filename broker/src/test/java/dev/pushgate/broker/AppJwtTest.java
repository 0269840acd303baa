package dev.pushgate.broker;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.crypto.RSASSAVerifier;
import com.nimbusds.jose.jca.JCAContext;
import com.nimbusds.jose.util.Base64URL;
import com.nimbusds.jwt.SignedJWT;
import dev.pushgate.testkit.MutableClock;
import dev.pushgate.types.Secret;
import java.security.interfaces.RSAPrivateKey;
import java.security.interfaces.RSAPublicKey;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class AppJwtTest {
  private static final Instant NOW = Instant.parse("2026-12-02T10:00:00Z");

  private final MutableClock clock = new MutableClock(NOW);
  private final RSAPrivateKey key = (RSAPrivateKey) TestKeys.rsa().getPrivate();
  private final RSAPublicKey publicKey = (RSAPublicKey) TestKeys.rsa().getPublic();

  @Test
  void signsRs256WithBackdatedIssueTimeNineMinuteExpiryAndStringIssuer() throws Exception {
    AppJwt jwt = new AppJwt("Iv23liClientId", key, clock);

    SignedJWT parsed = SignedJWT.parse(jwt.token().reveal());

    assertThat(parsed.verify(new RSASSAVerifier(publicKey))).isTrue();
    assertThat(parsed.getHeader().getAlgorithm()).isEqualTo(JWSAlgorithm.RS256);
    assertThat(parsed.getJWTClaimsSet().getIssuer()).isEqualTo("Iv23liClientId");
    assertThat(parsed.getJWTClaimsSet().getIssueTime().toInstant()).isEqualTo(NOW.minusSeconds(60));
    assertThat(parsed.getJWTClaimsSet().getExpirationTime().toInstant())
        .isEqualTo(NOW.plus(Duration.ofMinutes(9)));
    // a numeric App ID still goes out as a JSON string
    assertThat(parsed.getPayload().toString()).contains("\"iss\":\"Iv23liClientId\"");
  }

  @Test
  void numericAppIdIsSentAsString() throws Exception {
    AppJwt jwt = new AppJwt("123456", key, clock);

    assertThat(SignedJWT.parse(jwt.token().reveal()).getPayload().toString())
        .contains("\"iss\":\"123456\"");
  }

  @Test
  void reusesTheJwtUntilOneMinuteBeforeExpiry() throws Exception {
    CountingSigner signer = new CountingSigner(new RSASSASigner(key));
    AppJwt jwt = new AppJwt("1", signer, clock);

    Secret first = jwt.token();
    clock.advance(Duration.ofMinutes(8).minusSeconds(1));
    Secret stillFirst = jwt.token();
    clock.advance(Duration.ofSeconds(1));
    Secret second = jwt.token();

    assertThat(stillFirst).isSameAs(first);
    assertThat(second).isNotEqualTo(first);
    assertThat(signer.count.get()).isEqualTo(2);
    assertThat(SignedJWT.parse(second.reveal()).getJWTClaimsSet().getIssueTime().toInstant())
        .isEqualTo(NOW.plus(Duration.ofMinutes(8)).minusSeconds(60));
  }

  @Test
  void signsAgainWhenTheClockStepsBack() throws Exception {
    CountingSigner signer = new CountingSigner(new RSASSASigner(key));
    AppJwt jwt = new AppJwt("1", signer, clock);

    jwt.token();
    clock.set(NOW.minusSeconds(120));
    Secret after = jwt.token();

    assertThat(signer.count.get()).isEqualTo(2);
    assertThat(SignedJWT.parse(after.reveal()).getJWTClaimsSet().getIssueTime().toInstant())
        .isEqualTo(NOW.minusSeconds(180));
  }

  @Test
  void signsAgainAfterForget() throws Exception {
    CountingSigner signer = new CountingSigner(new RSASSASigner(key));
    AppJwt jwt = new AppJwt("1", signer, clock);

    jwt.token();
    jwt.forget();
    jwt.token();

    assertThat(signer.count.get()).isEqualTo(2);
  }

  @Test
  void concurrentCallersShareOneSigning() throws Exception {
    CountingSigner signer = new CountingSigner(new RSASSASigner(key));
    AppJwt jwt = new AppJwt("1", signer, clock);
    int callers = 8;
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(callers);
    try {
      List<Future<Secret>> results = new ArrayList<>();
      for (int i = 0; i < callers; i++) {
        results.add(pool.submit(() -> {
          start.await();
          return jwt.token();
        }));
      }
      start.countDown();
      Set<String> tokens = new java.util.HashSet<>();
      for (Future<Secret> f : results) {
        tokens.add(f.get(10, TimeUnit.SECONDS).reveal());
      }

      assertThat(tokens).hasSize(1);
      assertThat(signer.count.get()).isEqualTo(1);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void signingFailureIsABadKeyWithoutTheSignersText() {
    JWSSigner broken = new CountingSigner(new RSASSASigner(key)) {
      @Override
      public Base64URL sign(JWSHeader header, byte[] signingInput) throws JOSEException {
        throw new JOSEException("modulus 00c3a1... is odd");
      }
    };
    AppJwt jwt = new AppJwt("1", broken, clock);

    BrokerException e = org.assertj.core.api.Assertions.catchThrowableOfType(
        BrokerException.class, jwt::token);

    assertThat(e.reason()).isEqualTo(BrokerException.Reason.BAD_KEY);
    assertThat(e.getMessage()).isEqualTo(
        "could not sign the GitHub App JWT with the App's private key (JOSEException)");
  }

  /** Counts signings; slow enough that racing callers would overlap if not serialised. */
  private static class CountingSigner implements JWSSigner {
    final AtomicInteger count = new AtomicInteger();
    private final JWSSigner delegate;

    CountingSigner(JWSSigner delegate) {
      this.delegate = delegate;
    }

    @Override
    public Base64URL sign(JWSHeader header, byte[] signingInput) throws JOSEException {
      count.incrementAndGet();
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return delegate.sign(header, signingInput);
    }

    @Override
    public Set<JWSAlgorithm> supportedJWSAlgorithms() {
      return delegate.supportedJWSAlgorithms();
    }

    @Override
    public JCAContext getJCAContext() {
      return delegate.getJCAContext();
    }
  }
}
