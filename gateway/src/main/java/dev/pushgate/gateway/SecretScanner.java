package dev.pushgate.gateway;

import dev.pushgate.policy.SecretDetector;
import dev.pushgate.policy.SecretDetectors;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;

/**
 * Runs gitleaks' detectors over a blob as it streams, in constant memory whatever its size: the
 * blob is read in chunks, each scanned together with the tail of the one before ({@link
 * #overlap} bytes), so a secret that straddles a chunk boundary is still whole in one buffer.
 * Bytes are read as ISO-8859-1, one character each, so offsets and line numbers are the blob's
 * own. A detector runs its regex on a buffer only when one of its keywords occurs in it.
 */
final class SecretScanner {
  static final int CHUNK = 256 * 1024;
  /** Longer than any secret the detectors look for; a 4096-bit RSA key in PEM is about 3.3 KiB. */
  static final int OVERLAP = 8 * 1024;
  /** A blob's scan stops at this many findings: one is enough to judge, the rest is noise. */
  static final int MAX_FINDINGS = 5;

  private final SecretDetectors detectors;
  private final List<SecretDetector> withRegex;
  private final KeywordIndex keywords;
  /** For each detector in {@link #withRegex}, its keywords' indexes; empty: always runs. */
  private final List<int[]> keywordsOf;
  private final int chunk;
  private final int overlap;

  SecretScanner(SecretDetectors detectors) {
    this(detectors, CHUNK, OVERLAP);
  }

  SecretScanner(SecretDetectors detectors, int chunk, int overlap) {
    if (chunk <= 0 || overlap < 0) {
      throw new IllegalArgumentException("chunk " + chunk + ", overlap " + overlap);
    }
    this.detectors = detectors;
    this.chunk = chunk;
    this.overlap = overlap;
    this.withRegex = detectors.all().stream().filter(d -> d.regex() != null).toList();
    List<String> all = new ArrayList<>();
    Map<String, Integer> index = new HashMap<>();
    List<int[]> of = new ArrayList<>();
    for (SecretDetector d : withRegex) {
      of.add(d.keywords().stream()
          .mapToInt(k -> index.computeIfAbsent(k, x -> {
            all.add(x);
            return all.size() - 1;
          })).toArray());
    }
    this.keywords = new KeywordIndex(all);
    this.keywordsOf = of;
  }

  private static final class Standard {
    static final SecretScanner INSTANCE = new SecretScanner(SecretDetectors.standard());
  }

  static SecretScanner standard() {
    return Standard.INSTANCE;
  }

  SecretDetectors detectors() {
    return detectors;
  }

  /**
   * The detectors among {@code selected} that flag the file at {@code path} by its path alone
   * (gitleaks rules without a regex, such as PKCS#12 files).
   */
  List<SecretFinding> byPath(String path, Predicate<String> selected) {
    List<SecretFinding> out = new ArrayList<>();
    for (SecretDetector d : detectors.all()) {
      if (d.regex() == null && selected.test(d.id()) && d.appliesTo(path)
          && !globallyAllowed(path)) {
        out.add(new SecretFinding(d.id(), 0));
      }
    }
    return out;
  }

  /** Whether gitleaks' global allowlist exempts the path (lock files, vendored code, images). */
  boolean globallyAllowed(String path) {
    return detectors.globalAllowlist().paths().stream().anyMatch(p -> p.matcher(path).find());
  }

  /** Scans a blob's content, read to its end; at most {@value #MAX_FINDINGS} findings. */
  List<SecretFinding> scan(InputStream in, String path, Predicate<String> selected)
      throws IOException {
    List<SecretFinding> found = new ArrayList<>();
    if (globallyAllowed(path)) {
      return found;
    }
    List<Integer> candidates = new ArrayList<>();
    for (int i = 0; i < withRegex.size(); i++) {
      SecretDetector d = withRegex.get(i);
      if (selected.test(d.id()) && d.appliesTo(path)) {
        candidates.add(i);
      }
    }
    if (candidates.isEmpty()) {
      return found;
    }
    byte[] buf = new byte[overlap + chunk];
    int carried = 0;
    long linesBefore = 0;
    long startOfBuffer = 0;
    Set<String> seenInOverlap = new HashSet<>();
    boolean first = true;
    while (true) {
      int n = in.readNBytes(buf, carried, chunk);
      if (n == 0 && !first) {
        break;
      }
      int len = carried + n;
      String text = new String(buf, 0, len, StandardCharsets.ISO_8859_1);
      BitSet present = keywords.find(buf, len);
      Set<String> seenNow = new HashSet<>();
      for (int i : candidates) {
        if (!anyPresent(keywordsOf.get(i), present)) {
          continue;
        }
        SecretDetector d = withRegex.get(i);
        Matcher m = d.regex().matcher(text);
        while (m.find()) {
          if (!first && m.end() <= carried) {
            continue; // wholly in the overlap: the buffer before saw it whole
          }
          String key = d.id() + "@" + (startOfBuffer + m.start());
          if (seenInOverlap.contains(key) || !seenNow.add(key) || !isFinding(d, m, text, path)) {
            continue;
          }
          found.add(new SecretFinding(d.id(), linesBefore + newlines(buf, 0, m.start()) + 1));
          if (found.size() >= MAX_FINDINGS) {
            return found;
          }
        }
      }
      if (n < chunk) {
        break; // the end of the blob
      }
      int keep = Math.min(overlap, len);
      linesBefore += newlines(buf, 0, len - keep);
      startOfBuffer += len - keep;
      System.arraycopy(buf, len - keep, buf, 0, keep);
      carried = keep;
      seenInOverlap = seenNow;
      first = false;
    }
    return found;
  }

  private static boolean anyPresent(int[] keywordIndexes, BitSet present) {
    if (keywordIndexes.length == 0) {
      return true;
    }
    for (int k : keywordIndexes) {
      if (present.get(k)) {
        return true;
      }
    }
    return false;
  }

  /** Gitleaks' checks after a regex match: entropy, its digit rule, the allowlists. */
  private boolean isFinding(SecretDetector d, Matcher m, String text, String path) {
    String secret = d.secretOf(m);
    if (d.entropy() > 0) {
      if (SecretDetector.shannonEntropy(secret) <= d.entropy()) {
        return false;
      }
      if (d.id().startsWith("generic") && secret.chars().noneMatch(Character::isDigit)) {
        return false;
      }
    }
    String match = m.group();
    String line = lineAround(text, m.start(), m.end());
    if (detectors.globalAllowlist().allows(path, secret, match, line)) {
      return false;
    }
    for (SecretDetector.Allowlist a : d.allowlists()) {
      if (a.allows(path, secret, match, line)) {
        return false;
      }
    }
    return true;
  }

  private static String lineAround(String text, int start, int end) {
    int from = start == 0 ? 0 : text.lastIndexOf('\n', start - 1) + 1;
    int to = text.indexOf('\n', end);
    return text.substring(from, to < 0 ? text.length() : to);
  }

  private static long newlines(byte[] buf, int from, int to) {
    long n = 0;
    for (int i = from; i < to; i++) {
      if (buf[i] == '\n') {
        n++;
      }
    }
    return n;
  }
}
