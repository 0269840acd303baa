package dev.pushgate.broker;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.spec.ECGenParameterSpec;
import org.bouncycastle.crypto.util.OpenSSHPrivateKeyUtil;
import org.bouncycastle.crypto.util.PrivateKeyFactory;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.openssl.PKCS8Generator;
import org.bouncycastle.openssl.jcajce.JcaMiscPEMGenerator;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.openssl.jcajce.JceOpenSSLPKCS8EncryptorBuilder;
import org.bouncycastle.openssl.jcajce.JcePEMEncryptorBuilder;
import org.bouncycastle.util.io.pem.PemObject;
import org.bouncycastle.util.io.pem.PemWriter;

/** Keys generated for the tests, and their PEM spellings. */
final class TestKeys {
  private TestKeys() {}

  /** One 2048-bit RSA pair shared by all tests: generating one costs a noticeable fraction of a second. */
  static KeyPair rsa() {
    return Holder.RSA;
  }

  private static final class Holder {
    static final KeyPair RSA = generate("RSA", 2048);
  }

  static KeyPair generate(String algorithm, int bits) {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance(algorithm);
      g.initialize(bits);
      return g.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  static KeyPair ec() {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
      g.initialize(new ECGenParameterSpec("secp256r1"));
      return g.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** PKCS#1, {@code BEGIN RSA PRIVATE KEY}: what GitHub ships. */
  static String pkcs1(PrivateKey key) {
    return pem(key);
  }

  /** PKCS#8, {@code BEGIN PRIVATE KEY}. */
  static String pkcs8(PrivateKey key) {
    try {
      return pem(new JcaPKCS8Generator(key, null));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static String encryptedPkcs1(PrivateKey key) {
    try {
      return pem(new JcaMiscPEMGenerator(key, new JcePEMEncryptorBuilder("AES-256-CBC")
          .setProvider(new BouncyCastleProvider()).build("hunter2".toCharArray())));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static String encryptedPkcs8(PrivateKey key) {
    try {
      return pem(new JcaPKCS8Generator(key,
          new JceOpenSSLPKCS8EncryptorBuilder(PKCS8Generator.AES_256_CBC)
              .setProvider(new BouncyCastleProvider())
              .setPassword("hunter2".toCharArray())
              .build()));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** {@code BEGIN OPENSSH PRIVATE KEY} (openssh-key-v1), as ssh-keygen writes by default. */
  static String openSsh(KeyPair pair) {
    try {
      byte[] blob = OpenSSHPrivateKeyUtil.encodePrivateKey(
          PrivateKeyFactory.createKey(pair.getPrivate().getEncoded()));
      StringWriter out = new StringWriter();
      try (PemWriter w = new PemWriter(out)) {
        w.writeObject(new PemObject("OPENSSH PRIVATE KEY", blob));
      }
      return out.toString();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String pem(Object object) {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(out)) {
      w.writeObject(object);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  static Path write(Path dir, String name, String content) {
    return write(dir, name, content.getBytes(StandardCharsets.US_ASCII));
  }

  static Path write(Path dir, String name, byte[] content) {
    try {
      Path file = dir.resolve(name);
      Files.write(file, content);
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
