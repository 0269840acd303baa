package dev.pushgate.gateway.api;

import dev.pushgate.types.UntrustedText;
import java.io.IOException;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Objects;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.GeneralSubtree;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.asn1.x509.NameConstraints;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * One run's certificate authority, made when the run starts and forgotten when it ends: it signs
 * the certificate the API boundary shows for the GitHub API host names, so that a tool in the run
 * that trusts the run's bundle talks TLS to pushgate believing it talks to GitHub. Its key lives
 * only in this object's memory: nothing here writes or returns it (the {@link #serverContext()}
 * holds the leaf's key, under a password made here and never shown). It is valid for the run's lifetime
 * plus a margin, never longer, so a copy of its certificate left behind trusts nothing later.
 */
public final class RunCa {
  /** Clock skew a client may have: certificates start this long before now. */
  static final Duration BACKDATE = Duration.ofMinutes(5);

  private static final SecureRandom RANDOM = new SecureRandom();
  private static final String SIGNATURE = "SHA256withECDSA";
  /**
   * Bouncy Castle's own P-256 arithmetic, about four times faster than the JDK 17's for the four
   * operations a run's start pays (two key pairs, two signatures; docs/benchmarks.md). Used by
   * name for those only, never registered: every other use of the JCA keeps the JDK's providers.
   */
  private static final Provider EC = new BouncyCastleProvider();
  private static final java.util.Base64.Encoder PEM_BASE64 =
      java.util.Base64.getMimeEncoder(64, new byte[] {'\n'});

  private final X509Certificate caCertificate;
  private final X509Certificate leafCertificate;
  private final PrivateKey leafKey;
  private final List<String> hostNames;

  private RunCa(X509Certificate ca, X509Certificate leaf, PrivateKey leafKey, List<String> names) {
    this.caCertificate = ca;
    this.leafCertificate = leaf;
    this.leafKey = leafKey;
    this.hostNames = names;
  }

  /**
   * Makes a CA valid for {@code lifetime} from now (plus the backdate), and one leaf certificate
   * naming every host in {@code hostNames} (its SANs: one leaf serves every intercepted name,
   * whichever the client sends in SNI).
   */
  public static RunCa create(String runId, List<String> hostNames, Duration lifetime) {
    Objects.requireNonNull(runId, "runId");
    if (hostNames == null || hostNames.isEmpty()) {
      throw new IllegalArgumentException("a run CA certifies at least one host name");
    }
    if (lifetime == null || lifetime.isNegative() || lifetime.isZero()) {
      throw new IllegalArgumentException("a run CA needs a positive lifetime");
    }
    try {
      KeyPairGenerator gen = KeyPairGenerator.getInstance("EC", EC);
      gen.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
      KeyPair caKeys = gen.generateKeyPair();
      KeyPair leafKeys = gen.generateKeyPair();
      Instant now = Instant.now();
      Date from = Date.from(now.minus(BACKDATE));
      Date until = Date.from(now.plus(lifetime));
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      // The run id is printable and names the CA in a browser's or openssl's view; no secret.
      X500Name caName = new X500Name("CN=pushgate run CA " + UntrustedText.name(runId) + ",O=pushgate");
      List<GeneralSubtree> permitted = new ArrayList<>();
      for (String h : hostNames) {
        permitted.add(new GeneralSubtree(new GeneralName(GeneralName.dNSName, h)));
      }
      X509v3CertificateBuilder ca = new JcaX509v3CertificateBuilder(caName, serial(), from, until,
          caName, caKeys.getPublic())
          .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
          // The run trusts this CA for every name; the constraint keeps what it can vouch for
          // to the API hosts, whatever happens to a key (RFC 5280 4.2.1.10: critical).
          .addExtension(Extension.nameConstraints, true,
              new NameConstraints(permitted.toArray(GeneralSubtree[]::new), null))
          .addExtension(Extension.keyUsage, true,
              new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
          .addExtension(Extension.subjectKeyIdentifier, false,
              ext.createSubjectKeyIdentifier(caKeys.getPublic()));
      X509Certificate caCert = sign(ca, caKeys.getPrivate());

      List<GeneralName> sans = new ArrayList<>();
      for (String h : hostNames) {
        sans.add(new GeneralName(GeneralName.dNSName, h));
      }
      X509v3CertificateBuilder leaf = new JcaX509v3CertificateBuilder(caCert, serial(), from,
          until, new X500Name("CN=" + hostNames.get(0)), leafKeys.getPublic())
          .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
          .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
          .addExtension(Extension.extendedKeyUsage, false,
              new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth))
          .addExtension(Extension.subjectAlternativeName, false,
              new GeneralNames(sans.toArray(GeneralName[]::new)))
          .addExtension(Extension.authorityKeyIdentifier, false,
              ext.createAuthorityKeyIdentifier(caCert))
          .addExtension(Extension.subjectKeyIdentifier, false,
              ext.createSubjectKeyIdentifier(leafKeys.getPublic()));
      X509Certificate leafCert = sign(leaf, caKeys.getPrivate());
      // The CA's private key goes out of scope here: nothing more is ever signed with it.
      return new RunCa(caCert, leafCert, leafKeys.getPrivate(), List.copyOf(hostNames));
    } catch (GeneralSecurityException | OperatorCreationException | IOException e) {
      throw new IllegalStateException("cannot make the run's CA: " + e.getMessage(), e);
    }
  }

  public X509Certificate certificate() {
    return caCertificate;
  }

  public X509Certificate leafCertificate() {
    return leafCertificate;
  }

  public List<String> hostNames() {
    return hostNames;
  }

  /** The CA certificate in PEM, what the run's tools are told to trust. */
  public String certificatePem() {
    try {
      // RFC 7468's textual encoding, written here: BC's PEM writer cost more than the file write
      return "-----BEGIN CERTIFICATE-----\n"
          + PEM_BASE64.encodeToString(caCertificate.getEncoded())
          + "\n-----END CERTIFICATE-----\n";
    } catch (CertificateEncodingException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * A server TLS context showing the leaf and its chain, for the boundary's connections of this
   * run; its key goes through an in-memory key store under a password made here, never written
   * anywhere. Its sessions are its own: a ticket of another run's context resumes nothing here.
   */
  SSLContext serverContext() {
    try {
      char[] password = randomPassword();
      KeyStore ks = keyStore(password);
      KeyManagerFactory keys =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keys.init(ks, password);
      SSLContext tls = SSLContext.getInstance("TLS");
      tls.init(keys.getKeyManagers(), null, RANDOM);
      return tls;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot hold the run's certificate: " + e.getMessage(), e);
    }
  }

  /**
   * An in-memory key store with the leaf and its chain under {@code password}; never written
   * anywhere.
   */
  KeyStore keyStore(char[] password) {
    try {
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(null, null);
      ks.setKeyEntry("api", leafKey, password, new Certificate[] {leafCertificate, caCertificate});
      return ks;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot hold the run's certificate: " + e.getMessage(), e);
    }
  }

  private static char[] randomPassword() {
    byte[] b = new byte[24];
    RANDOM.nextBytes(b);
    return java.util.Base64.getEncoder().encodeToString(b).toCharArray();
  }

  /** Never the key: a CA printed in a log names its subject and validity only. */
  @Override
  public String toString() {
    return "RunCa[" + caCertificate.getSubjectX500Principal().getName() + ", until "
        + caCertificate.getNotAfter().toInstant() + "]";
  }

  private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey key)
      throws OperatorCreationException, GeneralSecurityException {
    ContentSigner signer = new JcaContentSignerBuilder(SIGNATURE).setProvider(EC).build(key);
    return new JcaX509CertificateConverter().getCertificate(builder.build(signer));
  }

  private static BigInteger serial() {
    return new BigInteger(127, RANDOM).add(BigInteger.ONE);
  }
}
