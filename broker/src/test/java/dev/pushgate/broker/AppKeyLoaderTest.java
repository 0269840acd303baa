package dev.pushgate.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.pushgate.broker.BrokerException.Reason;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.security.interfaces.RSAPrivateKey;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AppKeyLoaderTest {
  private static final String DOWNLOAD =
      "download a new private key from the GitHub App's settings page";

  @TempDir Path dir;

  private final KeyPair rsa = TestKeys.rsa();

  @Test
  void loadsPkcs1PemAsGitHubShipsIt() throws Exception {
    String pem = TestKeys.pkcs1(rsa.getPrivate());
    assertThat(pem).startsWith("-----BEGIN RSA PRIVATE KEY-----");

    assertThat(loaded(pem).getEncoded()).isEqualTo(rsa.getPrivate().getEncoded());
  }

  @Test
  void loadsPkcs8Pem() throws Exception {
    String pem = TestKeys.pkcs8(rsa.getPrivate());
    assertThat(pem).startsWith("-----BEGIN PRIVATE KEY-----");

    assertThat(loaded(pem).getEncoded()).isEqualTo(rsa.getPrivate().getEncoded());
  }

  @Test
  void loadsPkcs1PemWithCrLfLineEndingsAndSurroundingText() throws Exception {
    String pem = "Bag Attributes: saved from a browser\r\n"
        + TestKeys.pkcs1(rsa.getPrivate()).replace("\n", "\r\n") + "\r\n";

    assertThat(loaded(pem).getModulus()).isEqualTo(((RSAPrivateKey) rsa.getPrivate()).getModulus());
  }

  @Test
  void refusesOpenSshKeyNamingTheFix() {
    String pem = TestKeys.openSsh(TestKeys.generate("Ed25519", 255));
    Path file = TestKeys.write(dir, "id_ed25519", pem);

    BrokerException e = failure(file, pem);

    assertThat(e.getMessage()).isEqualTo("GitHub App private key " + file + " is an OpenSSH key;"
        + " GitHub App keys are PEM: " + DOWNLOAD + " (or convert this one with ssh-keygen -p -m"
        + " PEM -f " + file + ")");
  }

  @Test
  void refusesEncryptedPkcs1Key() {
    String pem = TestKeys.encryptedPkcs1(rsa.getPrivate());
    assertThat(pem).contains("Proc-Type: 4,ENCRYPTED");

    assertRefused(pem, AppKeyLoaderTest::encrypted);
  }

  @Test
  void refusesEncryptedPkcs8Key() {
    String pem = TestKeys.encryptedPkcs8(rsa.getPrivate());
    assertThat(pem).startsWith("-----BEGIN ENCRYPTED PRIVATE KEY-----");

    assertRefused(pem, AppKeyLoaderTest::encrypted);
  }

  @Test
  void refusesPublicKey() {
    String pem = TestKeys.pem(rsa.getPublic());
    assertThat(pem).startsWith("-----BEGIN PUBLIC KEY-----");
    Path file = TestKeys.write(dir, "app.pub.pem", pem);

    assertThat(failure(file, pem).getMessage()).isEqualTo("GitHub App private key " + file
        + " holds a public key or certificate, not the private key (GitHub keeps only the public"
        + " half): " + DOWNLOAD);
  }

  @Test
  void refusesTruncatedKey() {
    String pem = TestKeys.pkcs1(rsa.getPrivate());
    String cut = pem.substring(0, pem.length() / 2);
    Path file = TestKeys.write(dir, "app.pem", cut);

    assertThat(failure(file, pem).getMessage()).isEqualTo(damaged(file));
  }

  @Test
  void refusesKeyWithLinesMissingFromTheMiddle() {
    String pem = TestKeys.pkcs1(rsa.getPrivate());
    List<String> lines = new ArrayList<>(pem.lines().toList());
    lines.subList(5, 12).clear();
    Path file = TestKeys.write(dir, "app.pem", String.join("\n", lines) + "\n");

    assertThat(failure(file, pem).getMessage()).isEqualTo(damaged(file));
  }

  @Test
  void refusesGarbage() {
    Path file = TestKeys.write(dir, "app.pem", "this is the app id, not the key: 123456\n");

    assertThat(failure(file, "").getMessage()).isEqualTo(noKey(file));
  }

  @Test
  void refusesPemWithoutAKeyInIt() {
    Path file = TestKeys.write(dir, "app.pem", "-----BEGIN EC PARAMETERS-----\n"
        + "BggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n");

    assertThat(failure(file, "").getMessage()).isEqualTo(noKey(file));
  }

  @Test
  void refusesBinaryDerKey() {
    Path file = TestKeys.write(dir, "app.der", rsa.getPrivate().getEncoded());

    BrokerException e = failure(file, TestKeys.pkcs8(rsa.getPrivate()));

    assertThat(e.getMessage()).isEqualTo("GitHub App private key " + file + " looks like a binary"
        + " DER key; GitHub App keys are PEM: " + DOWNLOAD + " (or convert this one with openssl"
        + " pkey -inform DER -in " + file + " -out key.pem)");
  }

  @Test
  void refusesEcKey() {
    String pem = TestKeys.pkcs8(TestKeys.ec().getPrivate());

    assertRefused(pem, file -> "GitHub App private key " + file
        + " is an EC key; GitHub App keys are RSA: " + DOWNLOAD);
  }

  @Test
  void refusesShortRsaKey() {
    String pem = TestKeys.pkcs1(TestKeys.generate("RSA", 1024).getPrivate());

    assertRefused(pem, file -> "GitHub App private key " + file
        + " is a 1024-bit RSA key; GitHub App keys have at least 2048 bits: " + DOWNLOAD);
  }

  @Test
  void refusesEmptyFile() {
    Path file = TestKeys.write(dir, "app.pem", "");

    assertThat(failure(file, "").getMessage())
        .isEqualTo("GitHub App private key " + file + " is empty: " + DOWNLOAD);
  }

  @Test
  void refusesMissingFile() {
    Path file = dir.resolve("nowhere.pem");

    assertThat(failure(file, "").getMessage()).isEqualTo("GitHub App private key " + file
        + " does not exist: " + DOWNLOAD + " and point privateKeyFile at it");
  }

  @Test
  void refusesDirectory() {
    assertThat(failure(dir, "").getMessage()).isEqualTo("GitHub App private key " + dir
        + " is a directory, not a key file: point privateKeyFile at the .pem file");
  }

  @Test
  void refusesHugeFile() {
    Path file = TestKeys.write(dir, "app.pem", new byte[100 * 1024]);

    assertThat(failure(file, "").getMessage()).isEqualTo("GitHub App private key " + file
        + " is larger than 64 KiB, too large to be a PEM private key: point privateKeyFile at the"
        + " .pem file");
  }

  @Test
  void warnsLoudlyWhenOthersCanReadTheKey() throws Exception {
    Path file = TestKeys.write(dir, "app.pem", TestKeys.pkcs1(rsa.getPrivate()));
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));

    assertThat(loadLog(file)).contains("WARN").contains("GitHub App private key " + file + " is accessible"
        + " to group or others (mode rw-r--r--): anyone who can read it can act as the App;"
        + " chmod 600 " + file);
  }

  @Test
  void staysQuietWhenOnlyTheOwnerCanReadTheKey() throws Exception {
    Path file = TestKeys.write(dir, "app.pem", TestKeys.pkcs1(rsa.getPrivate()));

    assertThat(loadLog(file)).doesNotContain("accessible to group or others");
  }

  private static String encrypted(Path file) {
    return "GitHub App private key " + file + " is encrypted with a passphrase; the broker needs"
        + " it unencrypted: decrypt it with openssl pkey -in " + file + " -out key.pem (and keep"
        + " key.pem mode 600), or " + DOWNLOAD;
  }

  private static String noKey(Path file) {
    return "GitHub App private key " + file + " does not contain a PEM private key (expected a"
        + " line -----BEGIN RSA PRIVATE KEY-----): " + DOWNLOAD;
  }

  private static String damaged(Path file) {
    return "GitHub App private key " + file + " is not a complete PEM private key (truncated or"
        + " damaged): " + DOWNLOAD;
  }

  private RSAPrivateKey loaded(String pem) throws Exception {
    return AppKeyLoader.load(TestKeys.write(dir, "app.pem", pem));
  }

  private static String loadLog(Path file) throws Exception {
    try (LogCapture capture = new LogCapture()) {
      AppKeyLoader.load(file);
      return capture.text();
    }
  }

  /** Writes {@code pem} as a key file and checks that loading it fails with {@code message}. */
  private void assertRefused(String pem, Function<Path, String> message) {
    Path file = TestKeys.write(dir, "app.pem", pem);
    assertThat(failure(file, pem).getMessage()).isEqualTo(message.apply(file));
  }

  /** Loads a key that must fail, and checks that nothing of the key leaks through the failure. */
  private static BrokerException failure(Path file, String keyMaterial) {
    BrokerException e = catchThrowableOfType(BrokerException.class, () -> AppKeyLoader.load(file));
    assertThat(e).as("loading %s should fail", file).isNotNull();
    assertThat(e.reason()).isEqualTo(Reason.BAD_KEY);
    assertThat(e.getCause()).as("a parser's cause may quote the key").isNull();
    StringWriter trace = new StringWriter();
    e.printStackTrace(new PrintWriter(trace));
    for (String line : keyMaterial.lines().toList()) {
      if (line.startsWith("-----") || line.contains(":") || line.length() < 16) {
        continue;
      }
      for (int i = 0; i + 12 <= line.length(); i += 6) {
        assertThat(trace.toString()).doesNotContain(line.substring(i, i + 12));
      }
    }
    return e;
  }
}
