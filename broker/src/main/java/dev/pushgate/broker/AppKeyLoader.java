package dev.pushgate.broker;

import dev.pushgate.broker.BrokerException.Reason;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.PrivateKey;
import java.security.interfaces.RSAPrivateKey;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads a GitHub App private key: PKCS#1 PEM ({@code BEGIN RSA PRIVATE KEY}, what GitHub ships) or
 * PKCS#8 PEM ({@code BEGIN PRIVATE KEY}). Every other shape fails with a {@link BrokerException}
 * ({@link Reason#BAD_KEY}) that names the problem and the fix. Messages never quote the file's
 * content and carry no parser cause, whose text could.
 */
public final class AppKeyLoader {
  private static final Logger log = LoggerFactory.getLogger(AppKeyLoader.class);

  /** A 4096-bit PKCS#1 PEM is about 3.3 KB; anything much larger is not a key file. */
  private static final int MAX_BYTES = 64 * 1024;

  private static final int MIN_BITS = 2048;
  private static final String DOWNLOAD =
      "download a new private key from the GitHub App's settings page";
  private static final Map<String, String> KEY_KINDS = Map.of(
      "1.2.840.10045.2.1", "an EC key",
      "1.3.101.112", "an Ed25519 key",
      "1.3.101.113", "an Ed448 key",
      "1.2.840.10040.4.1", "a DSA key",
      "1.2.840.113549.1.1.10", "an RSA-PSS key");
  private static final Set<PosixFilePermission> TOO_OPEN = EnumSet.of(
      PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE,
      PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE);

  private AppKeyLoader() {}

  public static RSAPrivateKey load(Path file) throws BrokerException {
    String name = "GitHub App private key " + file;
    byte[] bytes = read(file, name);
    warnIfOpen(file);
    if (bytes.length == 0) {
      throw bad(name + " is empty: " + DOWNLOAD);
    }
    String text = new String(bytes, StandardCharsets.ISO_8859_1);
    if (text.contains("-----BEGIN OPENSSH PRIVATE KEY-----")) {
      throw bad(name + " is an OpenSSH key; GitHub App keys are PEM: " + DOWNLOAD
          + " (or convert this one with ssh-keygen -p -m PEM -f " + file + ")");
    }
    if (text.startsWith("PuTTY-User-Key-File")) {
      throw bad(name + " is a PuTTY key; GitHub App keys are PEM: " + DOWNLOAD);
    }
    if (!text.contains("-----BEGIN ")) {
      throw bad(bytes[0] == 0x30
          ? name + " looks like a binary DER key; GitHub App keys are PEM: " + DOWNLOAD
              + " (or convert this one with openssl pkey -inform DER -in " + file
              + " -out key.pem)"
          : name + " does not contain a PEM private key (expected a line -----BEGIN RSA PRIVATE"
              + " KEY-----): " + DOWNLOAD);
    }
    return parse(text, file, name);
  }

  private static RSAPrivateKey parse(String text, Path file, String name)
      throws BrokerException {
    JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
    try (PEMParser parser = new PEMParser(new StringReader(text))) {
      Object object;
      while ((object = parser.readObject()) != null) {
        if (object instanceof PEMKeyPair pair) {
          requireRsa(pair.getPrivateKeyInfo(), name);
          return rsa(converter.getKeyPair(pair).getPrivate(), name);
        }
        if (object instanceof PrivateKeyInfo info) {
          requireRsa(info, name);
          return rsa(converter.getPrivateKey(info), name);
        }
        if (object instanceof PEMEncryptedKeyPair || object instanceof PKCS8EncryptedPrivateKeyInfo) {
          throw bad(name + " is encrypted with a passphrase; the broker needs it unencrypted:"
              + " decrypt it with openssl pkey -in " + file + " -out key.pem (and keep key.pem"
              + " mode 600), or " + DOWNLOAD);
        }
        if (object instanceof SubjectPublicKeyInfo
            || object instanceof org.bouncycastle.asn1.pkcs.RSAPublicKey
            || object instanceof X509CertificateHolder) {
          throw bad(name + " holds a public key or certificate, not the private key (GitHub keeps"
              + " only the public half): " + DOWNLOAD);
        }
        // Anything else (EC PARAMETERS, a stray block) is skipped; a key may follow it.
      }
    } catch (BrokerException e) {
      throw e;
    } catch (IOException | RuntimeException e) {
      // The parser's own text is not passed on: it may quote what it could not parse.
      throw bad(name + " is not a complete PEM private key (truncated or damaged): " + DOWNLOAD);
    }
    throw bad(name + " does not contain a PEM private key (expected a line -----BEGIN RSA"
        + " PRIVATE KEY-----): " + DOWNLOAD);
  }

  private static void requireRsa(PrivateKeyInfo info, String name) throws BrokerException {
    ASN1ObjectIdentifier algorithm = info.getPrivateKeyAlgorithm().getAlgorithm();
    if (!PKCSObjectIdentifiers.rsaEncryption.equals(algorithm)) {
      String kind = KEY_KINDS.getOrDefault(algorithm.getId(), "not an RSA key");
      throw bad(name + " is " + kind + "; GitHub App keys are RSA: " + DOWNLOAD);
    }
  }

  private static RSAPrivateKey rsa(PrivateKey key, String name) throws BrokerException {
    if (!(key instanceof RSAPrivateKey rsa)) {
      throw bad(name + " is not an RSA key; GitHub App keys are RSA: " + DOWNLOAD);
    }
    int bits = rsa.getModulus().bitLength();
    if (bits < MIN_BITS) {
      throw bad(name + " is a " + bits + "-bit RSA key; GitHub App keys have at least " + MIN_BITS
          + " bits: " + DOWNLOAD);
    }
    return rsa;
  }

  private static byte[] read(Path file, String name) throws BrokerException {
    if (Files.isDirectory(file)) {
      throw bad(name + " is a directory, not a key file: point privateKeyFile at the .pem file");
    }
    try (InputStream in = Files.newInputStream(file)) {
      byte[] bytes = in.readNBytes(MAX_BYTES + 1);
      if (bytes.length > MAX_BYTES) {
        throw bad(name + " is larger than " + MAX_BYTES / 1024 + " KiB, too large to be a PEM"
            + " private key: point privateKeyFile at the .pem file");
      }
      return bytes;
    } catch (NoSuchFileException e) {
      throw bad(name + " does not exist: " + DOWNLOAD + " and point privateKeyFile at it");
    } catch (AccessDeniedException e) {
      throw bad(name + " cannot be read (permission denied): make it readable by the user the"
          + " broker runs as, and by no one else (chmod 600)");
    } catch (IOException e) {
      throw bad(name + " cannot be read (" + e.getClass().getSimpleName() + ")");
    }
  }

  private static void warnIfOpen(Path file) {
    try {
      Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file);
      if (permissions.stream().anyMatch(TOO_OPEN::contains)) {
        log.warn("GitHub App private key {} is accessible to group or others (mode {}):"
                + " anyone who can read it can act as the App; chmod 600 {}",
            file, PosixFilePermissions.toString(permissions), file);
      }
    } catch (UnsupportedOperationException | IOException e) {
      log.debug("cannot check the permissions of {}: {}", file, e.getClass().getSimpleName());
    }
  }

  private static BrokerException bad(String message) {
    return new BrokerException(Reason.BAD_KEY, message);
  }
}
