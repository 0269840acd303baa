package dev.pushgate.gateway.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.security.cert.CertPathValidator;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class RunCaTest {
  private static final List<String> HOSTS =
      List.of("api.github.com", "uploads.github.com", "ghes.example.com");

  @Test
  void theLeafChainsToTheRunCaAndNamesEveryApiHost() throws Exception {
    RunCa ca = RunCa.create("run-1", HOSTS, Duration.ofHours(1));
    CertificateFactory cf = CertificateFactory.getInstance("X.509");
    PKIXParameters params = new PKIXParameters(Set.of(new TrustAnchor(ca.certificate(), null)));
    params.setRevocationEnabled(false);
    CertPathValidator.getInstance("PKIX")
        .validate(cf.generateCertPath(List.of(ca.leafCertificate())), params);

    Set<String> sans = ca.leafCertificate().getSubjectAlternativeNames().stream()
        .map(l -> (String) l.get(1)).collect(Collectors.toSet());
    assertThat(sans).containsExactlyInAnyOrderElementsOf(HOSTS);
    assertThat(ca.certificate().getBasicConstraints()).isEqualTo(0);
    assertThat(ca.leafCertificate().getBasicConstraints()).isEqualTo(-1);
  }

  @Test
  void theCaCanVouchOnlyForTheApiHosts() throws Exception {
    RunCa ca = RunCa.create("run-1", HOSTS, Duration.ofHours(1));
    org.bouncycastle.asn1.x509.Extension ext =
        new org.bouncycastle.cert.jcajce.JcaX509CertificateHolder(ca.certificate())
            .getExtension(org.bouncycastle.asn1.x509.Extension.nameConstraints);
    assertThat(ext).isNotNull();
    assertThat(ext.isCritical()).isTrue();
    org.bouncycastle.asn1.x509.NameConstraints nc =
        org.bouncycastle.asn1.x509.NameConstraints.getInstance(ext.getParsedValue());
    assertThat(nc.getExcludedSubtrees()).isNull();
    assertThat(Arrays.stream(nc.getPermittedSubtrees())
        .map(t -> t.getBase().getName().toString())).containsExactlyInAnyOrderElementsOf(HOSTS);
  }

  @Test
  void bothCertificatesLiveAsLongAsTheRunAndNoLonger() {
    Instant before = Instant.now();
    RunCa ca = RunCa.create("run-1", HOSTS, Duration.ofMinutes(90));
    for (X509Certificate c : List.of(ca.certificate(), ca.leafCertificate())) {
      assertThat(c.getNotAfter().toInstant())
          .isBetween(before.plus(Duration.ofMinutes(90)).minusSeconds(1),
              Instant.now().plus(Duration.ofMinutes(90)).plusSeconds(1));
      assertThat(c.getNotBefore().toInstant()).isBefore(before);
    }
  }

  @Test
  void thePemIsTheCertificateAndNoKey() throws Exception {
    RunCa ca = RunCa.create("run-1", HOSTS, Duration.ofHours(1));
    String pem = ca.certificatePem();
    assertThat(pem).startsWith("-----BEGIN CERTIFICATE-----").doesNotContain("PRIVATE KEY");
    X509Certificate read = (X509Certificate) CertificateFactory.getInstance("X.509")
        .generateCertificate(new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII)));
    assertThat(read).isEqualTo(ca.certificate());
    assertThat(ca.toString()).doesNotContain("PRIVATE").contains("run-1");
  }

  @Test
  void theCaKeyIsNowhereToBeHadOnlyTheLeafsUnderItsPassword() throws Exception {
    RunCa ca = RunCa.create("run-1", HOSTS, Duration.ofHours(1));
    char[] pw = "pw".toCharArray();
    KeyStore ks = ca.keyStore(pw);
    assertThat(java.util.Collections.list(ks.aliases())).containsExactly("api");
    // The only key held is the leaf's: it matches the leaf's public key, not the CA's.
    var key = ks.getKey("api", pw);
    var sig = java.security.Signature.getInstance("SHA256withECDSA");
    sig.initSign((java.security.PrivateKey) key);
    sig.update(new byte[] {1});
    byte[] s = sig.sign();
    sig.initVerify(ca.leafCertificate().getPublicKey());
    sig.update(new byte[] {1});
    assertThat(sig.verify(s)).isTrue();
    sig.initVerify(ca.certificate().getPublicKey());
    sig.update(new byte[] {1});
    assertThat(sig.verify(s)).isFalse();
    // No accessor hands out a private key.
    for (var m : RunCa.class.getMethods()) {
      assertThat(java.security.PrivateKey.class.isAssignableFrom(m.getReturnType()))
          .as(m.getName()).isFalse();
    }
  }
}
