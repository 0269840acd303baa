package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.policy.SecretDetectors;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import dev.pushgate.testkit.FakeSecrets;

class SecretScannerTest {
  private static final SecretScanner SCANNER = SecretScanner.standard();

  static Stream<Arguments> providers() {
    return Stream.of(
        Arguments.of("github-pat", (Supplier<String>) FakeSecrets::githubPat),
        Arguments.of("github-fine-grained-pat", (Supplier<String>) FakeSecrets::githubFineGrained),
        Arguments.of("aws-access-token", (Supplier<String>) FakeSecrets::awsAccessKey),
        Arguments.of("gcp-api-key", (Supplier<String>) FakeSecrets::gcpApiKey),
        Arguments.of("slack-bot-token", (Supplier<String>) FakeSecrets::slackBot),
        Arguments.of("stripe-access-token", (Supplier<String>) FakeSecrets::stripeLive),
        Arguments.of("npm-access-token", (Supplier<String>) FakeSecrets::npm),
        Arguments.of("pypi-upload-token", (Supplier<String>) FakeSecrets::pypi),
        Arguments.of("private-key", (Supplier<String>) FakeSecrets::privateKey));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("providers")
  void findsEachProvidersSecretOnItsLine(String id, Supplier<String> secret) throws IOException {
    String text = "first line\nsecond line\nvalue = \"" + secret.get() + "\"\nlast\n";

    assertThat(scan(text)).extracting(SecretFinding::detectorId, SecretFinding::line)
        .contains(org.assertj.core.groups.Tuple.tuple(id, 3L));
  }

  @Test
  void findsTheKeyOfAGcpServiceAccountFile() throws IOException {
    assertThat(scan(FakeSecrets.gcpServiceAccount())).extracting(SecretFinding::detectorId,
        SecretFinding::line).contains(org.assertj.core.groups.Tuple.tuple("private-key", 4L));
  }

  @Test
  void plainCodeHasNoFindings() throws IOException {
    String code = "def key_for(name):\n    token = lookup(name)\n    return token\n"
        + "password = os.environ[\"PASSWORD\"]\napi_version = 3\n";

    assertThat(scan(code)).isEmpty();
  }

  @Test
  void gitleaksOwnAllowlistsApply() throws IOException {
    // AWS's documented example key ends in EXAMPLE, which the rule's allowlist lets pass.
    assertThat(scan("aws_key = " + "AK" + "IAIOSFODNN7EXAMPLE\n")).isEmpty();
  }

  @Test
  void aSecretStraddlingAChunkBoundaryIsFoundOnceOnItsLine() throws IOException {
    SecretScanner small = new SecretScanner(SecretDetectors.standard(), 64, 256);
    String secret = FakeSecrets.githubPat();
    for (int offset = 0; offset < 80; offset += 7) {
      String text = "x".repeat(offset) + "\n" + "y".repeat(50) + " " + secret + " tail\n"
          + "z".repeat(200) + "\n";

      List<SecretFinding> found = small.scan(stream(text), "a.txt", id -> true);

      assertThat(found).as("offset %d", offset).containsExactly(new SecretFinding("github-pat", 2));
    }
  }

  @Test
  void aPrivateKeyLongerThanAChunkIsFoundWithinTheOverlap() throws IOException {
    SecretScanner small = new SecretScanner(SecretDetectors.standard(), 128, 1024);
    String text = "header\n".repeat(40) + FakeSecrets.privateKey() + "footer\n".repeat(40);

    assertThat(small.scan(stream(text), "k.txt", id -> true))
        .containsExactly(new SecretFinding("private-key", 41));
  }

  /**
   * A review's finding: a private-key block longer than the overlap (a PGP secret keyring of many
   * keys), its opening more than the overlap before a chunk's end and its end after it, was in
   * no one buffer whole, and landed. Its start is now carried into the next chunk.
   */
  @Test
  void aPrivateKeyBlockLongerThanTheOverlapAcrossAChunkBoundaryIsFound() throws IOException {
    String block = longKeyBlock(9_200);
    String line = "filler text of a log, fifty-four characters long .....\n";
    int boundary = SecretScanner.CHUNK;
    StringBuilder text = new StringBuilder();
    while (text.length() + line.length() <= boundary - 8_500) {
      text.append(line);
    }
    long lineOfBlock = text.chars().filter(c -> c == '\n').count() + 1;
    text.append(block);
    while (text.length() < 600_000) {
      text.append(line);
    }

    assertThat(SCANNER.scan(stream(text.toString()), text.length(), "f.txt", id -> true))
        .containsExactly(new SecretFinding("private-key", lineOfBlock));
  }

  @Test
  void aLongPrivateKeyBlockIsFoundOnceWhereverAChunkEndsInIt() throws IOException {
    SecretScanner small = new SecretScanner(SecretDetectors.standard(), 512, 128, 5, 16_384);
    String block = longKeyBlock(3_000);
    for (int offset = 0; offset < 1_200; offset += 37) {
      String text = "x".repeat(offset) + "\n" + block + "z".repeat(700) + "\n";

      assertThat(small.scan(stream(text), "k.asc", id -> true)).as("offset %d", offset)
          .containsExactly(new SecretFinding("private-key", 2));
    }
  }

  @Test
  void aPrivateKeyBlockLongerThanTheCarryIsFoundByItsEndOnItsFirstLine() throws IOException {
    SecretScanner small = new SecretScanner(SecretDetectors.standard(), 512, 128, 5, 4_096);
    String block = longKeyBlock(6_000);
    String lowerCaseEnd = block.replace("-----END PGP PRIVATE", "-----end pgp private")
        .replace("KEY BLOCK-----\n", "key block-----\n");
    for (String b : List.of(block, lowerCaseEnd)) {
      for (int pad = 0; pad < 520; pad += 7) { // its end at every place against the chunks'
        String text = "a\nb" + "t".repeat(pad) + "\n" + b + "tail\n";

        assertThat(small.scan(stream(text), "k.asc", id -> true)).as("pad %d", pad)
            .containsExactly(new SecretFinding("private-key", 3));
      }
    }
  }

  /**
   * The second review's false refusal: a key's BEGIN and END lines as a document shows them, with
   * no body (no match: the regex wants 64 characters between), followed by more text than the
   * carry, was refused. It matches nothing up to the blob's end, and is no finding.
   */
  @Test
  void aKeyShownWithoutItsBodyInALongFileIsNoFinding() throws IOException {
    SecretScanner small = new SecretScanner(SecretDetectors.standard(), 512, 128, 5, 4_096);
    String text = "docs\n-----BEGIN RSA " + "PRIVATE KEY-----\n...\n-----END RSA "
        + "PRIVATE KEY-----\n" + "plain prose without keys in it\n".repeat(2_000);

    assertThat(small.scan(stream(text), "README.md", id -> true)).isEmpty();
  }

  /**
   * The second review: gitleaks' global allowlist ("false" anywhere, an alphabet stopword) read a
   * whole key block as its "secret", so a "Comment: false" armour header, or a decoy line before
   * the key whose match ran into its BEGIN, let the key land. It applies to tokens, not blocks.
   */
  @Test
  void theGlobalAllowlistDoesNotQuietAPrivateKeyBlock() throws IOException {
    String key = FakeSecrets.privateKey();
    String armoured = longKeyBlock(2_000).replace("BLOCK-----\n\n",
        "BLOCK-----\nComment: false\n\n");
    String alphabet = key.replace("-----\n", "-----\nabcdefghijklmnopqrstuvwxyz\n");
    String decoy = "# -----BEGIN X " + "PRIVATE KEY----- false\n" + key;

    for (String text : List.of(armoured, alphabet, decoy)) {
      assertThat(SCANNER.scan(stream("x\n" + text), "k.txt", id -> true)).as(text)
          .extracting(SecretFinding::detectorId).containsExactly("private-key");
    }
    assertThat(SCANNER.scan(stream("enabled = false\n"), "c.txt", id -> true)).isEmpty();
  }

  @Test
  void aLongCertificateOrPublicKeyIsNoFindingWhereverTheChunksEnd() throws IOException {
    SecretScanner small = new SecretScanner(SecretDetectors.standard(), 512, 128, 5, 4_096);
    for (String kind : List.of("CERTIFICATE", "PUBLIC KEY", "PGP PUBLIC KEY BLOCK")) {
      String text = "a\n" + longBlock(kind, 20_000) + "tail\n" + longBlock(kind, 900);

      assertThat(small.scan(stream(text), "c.pem", id -> true)).as(kind).isEmpty();
    }
  }

  /** An armoured PGP secret keyring of about {@code length} characters. */
  private static String longKeyBlock(int length) {
    return longBlock("PGP " + "PRIVATE KEY BLOCK", length);
  }

  private static String longBlock(String kind, int length) {
    StringBuilder b = new StringBuilder("-----BEGIN " + kind + "-----\n\n");
    for (int i = 0; b.length() < length; i++) {
      b.append(FakeSecrets.mixed(64, i)).append('\n');
    }
    return b.append("-----END ").append(kind).append("-----\n").toString();
  }

  @Test
  void aSizeHintTooSmallStillScansTheWholeBlob() throws IOException {
    SecretScanner small = new SecretScanner(SecretDetectors.standard(), 64, 256);
    String text = "z".repeat(500) + "\n" + FakeSecrets.githubPat() + "\n";

    assertThat(small.scan(stream(text), 10, "a.txt", id -> true))
        .containsExactly(new SecretFinding("github-pat", 2));
    assertThat(small.scan(stream(text), text.length(), "a.txt", id -> true))
        .containsExactly(new SecretFinding("github-pat", 2));
  }

  @Test
  void onlySelectedDetectorsRun() throws IOException {
    String text = FakeSecrets.githubPat() + "\n" + FakeSecrets.awsAccessKey() + "\n";

    assertThat(SCANNER.scan(stream(text), "a.txt", id -> id.equals("aws-access-token")))
        .extracting(SecretFinding::detectorId).containsExactly("aws-access-token");
  }

  /**
   * A push's judge picks its detectors once and scans every file and message with that pick: the
   * rules are asked about each detector once, and each scan finds what it found when asked per
   * blob, path conditions and the global allowlist still applied per file.
   */
  @Test
  void aSelectionMadeOnceScansEveryBlobAsThePredicateDid() throws IOException {
    java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();
    SecretScanner.Selection picked = SCANNER.select(id -> {
      asked.incrementAndGet();
      return !id.equals("aws-access-token");
    });
    int detectors = asked.get();
    String generic = "api_key = \"" + FakeSecrets.mixed(32, 7) + "\"\n";
    String text = generic + FakeSecrets.githubPat() + "\n" + FakeSecrets.awsAccessKey() + "\n";

    for (String path : new String[] {"src/app.py", "logo.png", "a.txt"}) {
      byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
      assertThat(SCANNER.scan(stream(text), bytes.length, path, picked))
          .as(path).isEqualTo(SCANNER.scan(stream(text), path,
              id -> !id.equals("aws-access-token")));
    }
    assertThat(asked.get()).isEqualTo(detectors);
    assertThat(SCANNER.scan(stream(text), -1, "logo.png", picked))
        .containsExactly(new SecretFinding("github-pat", 2));
  }

  /**
   * Gitleaks' global path allowlist is the pusher's to choose (name the file logo.png, put it
   * under node_modules/): it quiets only the generic, entropy-based detector, never a token with a
   * known shape.
   */
  @ParameterizedTest
  @ValueSource(strings = {"web/package-lock.json", "logo.png", "node_modules/x/index.js",
      "conf/gitleaks.toml", "go.sum"})
  void pathsGitleaksAllowsGloballyQuietOnlyTheGenericDetector(String path) throws IOException {
    String generic = "api_key = \"" + FakeSecrets.mixed(32, 7) + "\"\n";
    String text = generic + "TOKEN=" + FakeSecrets.githubPat() + "\n";

    assertThat(SCANNER.scan(stream(text), path, id -> true))
        .containsExactly(new SecretFinding("github-pat", 2));
    assertThat(SCANNER.scan(stream(generic), "src/app.py", id -> true))
        .extracting(SecretFinding::detectorId).containsExactly("generic-api-key");
  }

  @Test
  void aSecretAtTheVeryStartOrEndOfABlobOrBetweenCrlfLinesIsFound() throws IOException {
    String secret = FakeSecrets.githubPat();

    assertThat(scan(secret)).containsExactly(new SecretFinding("github-pat", 1));
    assertThat(scan("a\n" + secret)).containsExactly(new SecretFinding("github-pat", 2));
    assertThat(scan("a\r\nb\r\nTOKEN=" + secret + "\r\n"))
        .contains(new SecretFinding("github-pat", 3));
  }

  /**
   * A line of "curl curl …" made java.util.regex read the rest of the line from every "curl". The
   * anchored matches spend their read budget, the search takes over, and the secrets at the end
   * are still found, the curl rule's own and another's (the timing is in docs/benchmarks.md).
   */
  @Test
  void aCraftedLineSpendsTheReadBudgetAndTheSearchStillFindsWhatFollows() throws IOException {
    String text = "curl ".repeat(20_000) + "-u admin:" + FakeSecrets.mixed(20, 9) + " "
        + FakeSecrets.githubPat() + "\n";

    assertThat(scan(text)).extracting(SecretFinding::detectorId)
        .contains("curl-auth-user", "github-pat");
  }

  private static List<SecretFinding> scan(String text) throws IOException {
    return SCANNER.scan(stream(text), "src/app.py", id -> true);
  }

  private static InputStream stream(String text) {
    return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
  }
}
