package dev.pushgate.forge;

import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.security.interfaces.RSAPublicKey;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;

/**
 * The local forge's GitHub App key pair. The private key is written as GitHub ships App keys
 * (PKCS#1 PEM, mode 0600) so the broker reads it exactly as it reads a real App's key; the forge
 * keeps the public half to verify App JWTs.
 */
public final class ForgeAppKey {
  /** The App id the forge answers to. */
  public static final String APP_ID = "1";
  /**
   * The installation of the forge's App on {@code owner}: one per owner, as on GitHub, so a
   * repository name is looked up within its owner only.
   */
  public static long installationIdOf(String owner) {
    java.util.zip.CRC32 crc = new java.util.zip.CRC32();
    crc.update(owner.toLowerCase(java.util.Locale.ROOT)
        .getBytes(java.nio.charset.StandardCharsets.UTF_8));
    return 1 + crc.getValue();
  }

  private final Path privateKeyFile;
  private final RSAPublicKey publicKey;

  private ForgeAppKey(Path privateKeyFile, RSAPublicKey publicKey) {
    this.privateKeyFile = privateKeyFile;
    this.publicKey = publicKey;
  }

  public static ForgeAppKey openOrCreate(Path privateKeyFile) throws IOException {
    if (!Files.exists(privateKeyFile)) {
      write(privateKeyFile, generate());
    }
    try (Reader r = Files.newBufferedReader(privateKeyFile, StandardCharsets.US_ASCII);
        PEMParser parser = new PEMParser(r)) {
      Object o = parser.readObject();
      if (!(o instanceof PEMKeyPair pair)) {
        throw new IOException("the local forge's App key " + privateKeyFile
            + " is damaged; delete it to make a new one (live tokens stay valid)");
      }
      KeyPair kp = new JcaPEMKeyConverter().getKeyPair(pair);
      return new ForgeAppKey(privateKeyFile, (RSAPublicKey) kp.getPublic());
    }
  }

  public Path privateKeyFile() {
    return privateKeyFile;
  }

  public RSAPublicKey publicKey() {
    return publicKey;
  }

  private static KeyPair generate() {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
      g.initialize(2048);
      return g.generateKeyPair();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void write(Path file, KeyPair kp) throws IOException {
    StringWriter pem = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(pem)) {
      w.writeObject(kp.getPrivate());
    }
    Files.createDirectories(file.getParent());
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.deleteIfExists(tmp);
    Files.createFile(tmp, PosixFilePermissions.asFileAttribute(
        PosixFilePermissions.fromString("rw-------")));
    try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.US_ASCII)) {
      w.write(pem.toString());
    }
    Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }
}
