package dev.pushgate.gateway;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import dev.pushgate.testkit.FakeSecrets;

/**
 * Measures the secret scanner, on demand (not part of {@code mvn test}: the name does not end in
 * Test). Run: {@code bench/scanner-throughput} or {@code mvn -o test -pl gateway
 * -Dtest=SecretScannerThroughput -Dscan.mib=100 -DargLine=-Xmx64m}. Prints MiB/s for source-like
 * text, for random binary (judged binary from its first 8000 bytes, then not scanned), and the
 * heap used, to show a blob of any size is scanned in constant memory.
 */
class SecretScannerThroughput {
  private static final String[] CODE = {
      "def key_for(name):\n", "    token = lookup(name)  # api auth\n",
      "    return {\"access\": token, \"secret_name\": name}\n", "password = os.environ[\"PW\"]\n",
      "import java.util.List; // credential store\n", "  private final String apiKey;\n",
      "fetch(\"https://api.example.com/v1\", {headers: {Authorization: auth}})\n",
      "export AWS_REGION=eu-west-1\n", "<div class=\"auth-form\">Sign in</div>\n"};

  @Test
  void measure() throws IOException {
    long mib = Long.getLong("scan.mib", 100);
    // Every finding counted: the gateway's scanner stops a blob at its fifth.
    SecretScanner scanner = new SecretScanner(dev.pushgate.policy.SecretDetectors.standard(),
        SecretScanner.CHUNK, SecretScanner.OVERLAP, Integer.MAX_VALUE);
    scanner.scan(textStream(4L << 20), "warm/up.py", id -> true);
    long start = System.nanoTime();
    List<SecretFinding> found = scanner.scan(textStream(mib << 20), "src/app.py", id -> true);
    double textSeconds = (System.nanoTime() - start) / 1e9;
    byte[] corpus = sources();
    if (Boolean.getBoolean("scan.profile")) {
      profile(scanner, textStream(1 << 20).readAllBytes());
      profile(scanner, corpus);
    }
    long codeStart = System.nanoTime();
    List<SecretFinding> inCode = scanner.scan(repeated(corpus, mib << 20), "src/App.java",
        id -> true);
    double codeSeconds = (System.nanoTime() - codeStart) / 1e9;
    System.out.printf(Locale.ROOT, "scanner: %d MiB of this repository's Java sources (%d KiB,"
            + " repeated) in %.2f s = %.0f MiB/s, %d findings%n", mib, corpus.length >> 10,
        codeSeconds, mib / codeSeconds, inCode.size());
    inCode.stream().map(SecretFinding::detectorId).distinct()
        .forEach(id -> System.out.println("scanner: found in the sources: " + id));
    // A crafted blob: one line of "curl " repeated. Gitleaks' curl rules start with
    // \bcurl\b(?:.*?|.*?(?:[\r\n]{1,2}.*?){1,5}): a backtracking engine tries each "curl" and
    // scans the rest of the line from it, quadratic in the line's length.
    for (long kib : new long[] {Long.getLong("scan.redos.kib", 64) / 2,
        Long.getLong("scan.redos.kib", 64)}) {
      byte[] crafted = "curl ".repeat((int) (kib * 1024 / 5)).getBytes(
          java.nio.charset.StandardCharsets.ISO_8859_1);
      long craftedStart = System.nanoTime();
      scanner.scan(new java.io.ByteArrayInputStream(crafted), "run.sh", id -> true);
      System.out.printf(Locale.ROOT, "scanner: crafted %d KiB line of \"curl \" in %.2f s%n", kib,
          (System.nanoTime() - craftedStart) / 1e9);
    }
    // Another: one line of many generic-api-key candidates, each strong enough and each let
    // through by a stopword of the rule's allowlist, which also holds regexes on the whole line.
    {
      StringBuilder line = new StringBuilder();
      for (int n = 0; line.length() < Long.getLong("scan.redos.kib", 64) * 1024; n++) {
        line.append("key=zsh_").append(FakeSecrets.mixed(16, n)).append(n).append(' ');
      }
      byte[] crafted = line.toString().getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
      long craftedStart = System.nanoTime();
      scanner.scan(new java.io.ByteArrayInputStream(crafted), "run.sh", id -> true);
      System.out.printf(Locale.ROOT, "scanner: crafted %d KiB line of allowed candidates in %.2f s%n",
          crafted.length >> 10, (System.nanoTime() - craftedStart) / 1e9);
    }
    long binStart = System.nanoTime();
    RandomStream random = new RandomStream(mib << 20);
    byte[] head = random.readNBytes(ContentJudge.BINARY_PROBE);
    boolean binary = new String(head, java.nio.charset.StandardCharsets.ISO_8859_1)
        .indexOf('\0') >= 0;
    double binSeconds = (System.nanoTime() - binStart) / 1e9;
    Runtime rt = Runtime.getRuntime();
    System.out.printf(Locale.ROOT, "scanner: %d MiB of text in %.2f s = %.0f MiB/s, %d findings;"
            + " random binary (binary=%s) judged in %.4f s; heap used %d MiB of max %d MiB%n",
        mib, textSeconds, mib / textSeconds, found.size(), binary, binSeconds,
        (rt.totalMemory() - rt.freeMemory()) >> 20, rt.maxMemory() >> 20);
  }

  /** The detectors that cost the most on the corpus, each run alone. */
  private static void profile(SecretScanner scanner, byte[] corpus) throws IOException {
    java.util.Map<String, Long> took = new java.util.HashMap<>();
    for (int round = 0; round < 2; round++) {
      for (var d : scanner.detectors().all()) {
        long t = System.nanoTime();
        scanner.scan(new java.io.ByteArrayInputStream(corpus), "src/App.java",
            id -> id.equals(d.id()));
        took.put(d.id(), (System.nanoTime() - t) / 1000);
      }
    }
    took.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue(), a.getValue())).limit(12)
        .forEach(e -> System.out.println("scanner: profile " + e.getValue() + " us " + e.getKey()));
  }

  /** This repository's main Java sources, concatenated: real code, dense in words like token. */
  private static byte[] sources() throws IOException {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    try (java.util.stream.Stream<java.nio.file.Path> files =
        java.nio.file.Files.walk(java.nio.file.Path.of("..").toAbsolutePath().normalize())) {
      for (java.nio.file.Path f : files.filter(p -> p.toString().endsWith(".java")
          && p.toString().contains("/src/main/java/")).sorted().toList()) {
        out.write(java.nio.file.Files.readAllBytes(f));
      }
    }
    return out.toByteArray();
  }

  /** {@code corpus} again and again, {@code size} bytes in all, never held whole. */
  private static InputStream repeated(byte[] corpus, long size) {
    return new Pieces(() -> corpus, size);
  }

  /** Source-like text, generated as it is read, never held whole. */
  private static InputStream textStream(long size) {
    SplittableRandom random = new SplittableRandom(1);
    return new Pieces(() -> CODE[random.nextInt(CODE.length)].getBytes(
        java.nio.charset.StandardCharsets.US_ASCII), size);
  }

  /** {@code size} bytes of the pieces {@code next} gives, one after another, as they are read. */
  private static final class Pieces extends InputStream {
    private final Supplier<byte[]> next;
    private long left;
    private byte[] piece = new byte[0];
    private int at;

    Pieces(Supplier<byte[]> next, long size) {
      this.next = next;
      this.left = size;
    }

    @Override
    public int read() {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      if (left <= 0) {
        return -1;
      }
      int n = 0;
      while (n < len && left > 0) {
        if (at == piece.length) {
          piece = next.get();
          at = 0;
        }
        int k = (int) Math.min(Math.min(len - n, piece.length - at), left);
        System.arraycopy(piece, at, b, off + n, k);
        at += k;
        n += k;
        left -= k;
      }
      return n;
    }
  }

  private static final class RandomStream extends InputStream {
    private final SplittableRandom random = new SplittableRandom(2);
    private long left;

    RandomStream(long size) {
      this.left = size;
    }

    @Override
    public int read() {
      if (left-- <= 0) {
        return -1;
      }
      return random.nextInt(256);
    }
  }
}
