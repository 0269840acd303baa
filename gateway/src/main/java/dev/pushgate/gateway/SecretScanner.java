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
import com.google.re2j.Matcher;
import dev.pushgate.policy.SecretDetector.Match;

/**
 * Runs gitleaks' detectors over a blob as it streams, in constant memory whatever its size: the
 * blob is read in chunks, each scanned together with the tail of the one before ({@link
 * #overlap} bytes), so a secret that straddles a chunk boundary is still whole in one buffer.
 * Bytes are read as ISO-8859-1, one character each, so offsets and line numbers are the blob's
 * own. A detector runs its regex on a buffer only when one of its keywords occurs in it, and from
 * the first place one of its leading literals occurs. The regexes are RE2/J's: each search is
 * linear in the text it reads, and a detector's searches in a buffer go left to right, each from
 * where the match before ended, so a buffer costs each detector about one pass, whatever the text.
 */
final class SecretScanner {
  static final int CHUNK = 256 * 1024;
  /** Longer than any secret the detectors look for; a 4096-bit RSA key in PEM is about 3.3 KiB. */
  static final int OVERLAP = 8 * 1024;
  /**
   * How far back a block still open at a chunk's end is carried into the next (a PGP secret
   * keyring of many keys, gitleaks' {@code private-key}, has no length bound). A block opened
   * further back than this is remembered by its line alone: it is a finding if the rest of the
   * blob holds what would end it ({@link #closingOf}), as the regex over the whole blob would
   * match it, and otherwise not.
   */
  static final int MAX_BLOCK = 1 << 20;
  /** How much of the text after a block's anchor its opening is looked for in. */
  private static final int OPENING = 1024;
  /** A blob's scan stops at this many findings: one is enough to judge, the rest is noise. */
  static final int MAX_FINDINGS = 5;
  /** How far left of a fast candidate its full match may start: the stripped prefixes' length. */
  private static final int WIDEN = 128;

  private final SecretDetectors detectors;
  private final List<SecretDetector> withRegex;
  /** For each detector in {@link #withRegex}: the regex its search runs ({@code fast}, or the
   * whole regex), and the same after any one character, for an anchored match at an offset. */
  private final List<com.google.re2j.Pattern> searchOf;
  private final List<com.google.re2j.Pattern> anchoredOf;
  private final KeywordIndex keywords;
  /** For each detector in {@link #withRegex}, its keywords' indexes; empty: always runs. */
  private final List<int[]> keywordsOf;
  /**
   * For each detector in {@link #withRegex}, whether it applies to a text, which has no path (the
   * empty one): asked once here, as every comment and message scanned would ask it of each.
   */
  private final boolean[] appliesToText;
  /**
   * For each detector in {@link #withRegex}, null, or the opening of the block its regex matches
   * when a match may run any length ({@code [\s\S]}, gitleaks' {@code private-key}: from {@code
   * -----BEGIN … PRIVATE KEY-----} to the next {@code KEY-----}): the regex up to that span.
   */
  private final com.google.re2j.Pattern[] openingOf;
  /**
   * For each detector of {@link #openingOf}, null, or what its regex matches after the span (the
   * {@code KEY-----} that ends a private key): a block opened longer ago than {@link #MAX_BLOCK}
   * is a match wherever this occurs next. Null: such a block is a finding (fail closed).
   */
  private final com.google.re2j.Pattern[] closingOf;
  private final int chunk;
  private final int overlap;
  private final int maxBlock;
  private final int maxFindings;
  /** The texts every match of some detectors starts with: their regexes run only there. */
  private final KeywordIndex anchors;
  private final int[] anchorLength;
  /** For each anchor, the detectors (indexes in {@link #withRegex}) anchored on it. */
  private final int[][] anchorUsers;

  SecretScanner(SecretDetectors detectors) {
    this(detectors, CHUNK, OVERLAP);
  }

  SecretScanner(SecretDetectors detectors, int chunk, int overlap) {
    this(detectors, chunk, overlap, MAX_FINDINGS);
  }

  SecretScanner(SecretDetectors detectors, int chunk, int overlap, int maxFindings) {
    this(detectors, chunk, overlap, maxFindings, MAX_BLOCK);
  }

  SecretScanner(SecretDetectors detectors, int chunk, int overlap, int maxFindings,
      int maxBlock) {
    if (chunk <= 0 || overlap < 0 || maxBlock < overlap) {
      throw new IllegalArgumentException("chunk " + chunk + ", overlap " + overlap
          + ", block " + maxBlock);
    }
    this.detectors = detectors;
    this.maxFindings = maxFindings;
    this.chunk = chunk;
    this.overlap = overlap;
    this.maxBlock = maxBlock;
    this.withRegex = detectors.all().stream().filter(d -> d.regex() != null).toList();
    this.searchOf = withRegex.stream().map(d -> d.fast() != null ? d.fast() : d.regex()).toList();
    this.anchoredOf = searchOf.stream().map(p -> com.google.re2j.Pattern.compile(
        "(?s:.)(?:" + p.pattern() + ")", p.flags())).toList();
    this.openingOf = withRegex.stream().map(d -> opening(d.regex()))
        .toArray(com.google.re2j.Pattern[]::new);
    this.closingOf = withRegex.stream().map(d -> closing(d.regex()))
        .toArray(com.google.re2j.Pattern[]::new);
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
    this.appliesToText = new boolean[withRegex.size()];
    for (int d = 0; d < withRegex.size(); d++) {
      appliesToText[d] = withRegex.get(d).appliesTo("");
    }
    List<String> anchorTexts = new ArrayList<>();
    Map<String, Integer> anchorIndex = new HashMap<>();
    List<List<Integer>> users = new ArrayList<>();
    for (int d = 0; d < withRegex.size(); d++) {
      for (String a : withRegex.get(d).anchors()) {
        int k = anchorIndex.computeIfAbsent(a, x -> {
          anchorTexts.add(x);
          users.add(new ArrayList<>());
          return anchorTexts.size() - 1;
        });
        users.get(k).add(d);
      }
    }
    this.anchors = new KeywordIndex(anchorTexts);
    this.anchorLength = anchorTexts.stream().mapToInt(a -> a.getBytes(
        StandardCharsets.ISO_8859_1).length).toArray();
    this.anchorUsers = users.stream().map(u -> u.stream().mapToInt(Integer::intValue).toArray())
        .toArray(int[][]::new);
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
   * A regex's opening, when its match may run any length: what comes before its first {@code
   * [\s\S} span, matched at a block's start; null when it has no such span (every other
   * detector's match is bounded, and {@link #OVERLAP} holds it whole) or what comes before does
   * not stand as a regex of its own.
   */
  private static com.google.re2j.Pattern opening(com.google.re2j.Pattern regex) {
    java.util.regex.Matcher span = SPAN.matcher(regex.pattern());
    return span.find() && span.start() > 0
        ? compiled(regex.pattern().substring(0, span.start()), regex.flags()) : null;
  }

  /**
   * What a regex of {@link #opening} matches after its span, with the regex's leading flags
   * ({@code (?i)}: a lower-case {@code key-----} ends a block too); null if that is not a regex.
   */
  private static com.google.re2j.Pattern closing(com.google.re2j.Pattern regex) {
    java.util.regex.Matcher span = SPAN.matcher(regex.pattern());
    if (!span.find() || span.start() == 0 || span.end() == regex.pattern().length()) {
      return null;
    }
    java.util.regex.Matcher flags = LEADING_FLAGS.matcher(regex.pattern());
    return compiled((flags.lookingAt() ? flags.group() : "")
        + regex.pattern().substring(span.end()), regex.flags());
  }

  private static final java.util.regex.Pattern LEADING_FLAGS =
      java.util.regex.Pattern.compile("\\(\\?[a-zA-Z]+\\)");

  /** A span of any characters, any length from some on: {@code [\s\S-]{64,}?}, {@code *?}. */
  private static final java.util.regex.Pattern SPAN =
      java.util.regex.Pattern.compile("\\[\\\\s\\\\S[^\\]]*](?:\\{\\d+,}|[*+])\\??");

  private static com.google.re2j.Pattern compiled(String regex, int flags) {
    try {
      return com.google.re2j.Pattern.compile(regex, flags);
    } catch (com.google.re2j.PatternSyntaxException e) {
      return null;
    }
  }

  /**
   * The detectors among {@code selected} that flag the file at {@code path} by its path alone
   * (gitleaks rules without a regex, such as PKCS#12 files).
   */
  List<SecretFinding> byPath(String path, Predicate<String> selected) {
    List<SecretFinding> out = new ArrayList<>();
    for (SecretDetector d : detectors.all()) {
      if (d.regex() == null && selected.test(d.id()) && d.appliesTo(path)
          && !quietedByPath(d, path)) {
        out.add(new SecretFinding(d.id(), 0));
      }
    }
    return out;
  }

  /**
   * Whether a detector is one of gitleaks' generic, entropy-based ones ({@code generic-api-key}),
   * rather than one for a token with a known shape (GitHub, AWS, Slack, private keys, …).
   */
  static boolean isGeneric(String detectorId) {
    return detectorId.startsWith("generic");
  }

  /** Whether gitleaks' global allowlist exempts the path (lock files, vendored code, images). */
  boolean globallyAllowed(String path) {
    return detectors.globalAllowlist().paths().stream().anyMatch(p -> p.matcher(path).find());
  }

  /**
   * Whether gitleaks' global path allowlist quiets the detector at this path: only for the generic,
   * entropy-based detectors. The path is the pusher's choice (a token in {@code logo.png}, under
   * {@code node_modules/}, in a file named {@code gitleaks.toml}); a token with a known shape is a
   * secret whatever the file is called.
   */
  private boolean quietedByPath(SecretDetector d, String path) {
    return isGeneric(d.id()) && globallyAllowed(path);
  }

  /**
   * The detectors with a regex that {@code selected} picks, for many scans: a push's judge asks
   * its rules about each of gitleaks' some 220 detectors once, not once per file and message.
   */
  Selection select(Predicate<String> selected) {
    int[] picked = new int[withRegex.size()];
    int count = 0;
    for (int i = 0; i < withRegex.size(); i++) {
      if (selected.test(withRegex.get(i).id())) {
        picked[count++] = i;
      }
    }
    return new Selection(java.util.Arrays.copyOf(picked, count));
  }

  /** Detectors with a regex picked once ({@link #select}), as indexes into this scanner's. */
  static final class Selection {
    private final int[] detectors;

    private Selection(int[] detectors) {
      this.detectors = detectors;
    }
  }

  /** Scans a blob's content, read to its end or to the last finding it reports. */
  List<SecretFinding> scan(InputStream in, String path, Predicate<String> selected)
      throws IOException {
    return scan(in, -1, path, selected);
  }

  /**
   * As {@link #scan(InputStream, String, Predicate)}, for a blob of about {@code size} bytes (-1:
   * unknown): a small blob gets a buffer of its own size, not a whole chunk, so that a push of
   * many small files does not allocate a chunk for each.
   */
  List<SecretFinding> scan(InputStream in, long size, String path, Predicate<String> selected)
      throws IOException {
    return scan(in, size, path, select(selected));
  }

  /** As {@link #scan(InputStream, long, String, Predicate)}, with detectors picked before. */
  List<SecretFinding> scan(InputStream in, long size, String path, Selection selected)
      throws IOException {
    List<SecretFinding> found = new ArrayList<>();
    int[] candidates = new int[selected.detectors.length];
    int count = 0;
    Boolean pathAllowed = null; // gitleaks' global path allowlist, asked once per blob
    for (int i : selected.detectors) {
      SecretDetector d = withRegex.get(i);
      if (path.isEmpty() ? !appliesToText[i] : !d.appliesTo(path)) {
        continue;
      }
      if (isGeneric(d.id())) {
        if (pathAllowed == null) {
          pathAllowed = globallyAllowed(path);
        }
        if (pathAllowed) {
          continue; // quietedByPath
        }
      }
      candidates[count++] = i;
    }
    if (count == 0) {
      return found;
    }
    candidates = java.util.Arrays.copyOf(candidates, count);
    byte[] buf = new byte[size < 0 ? overlap + chunk : (int) Math.min(overlap + chunk, size + 1)];
    int carried = 0;
    long linesBefore = 0;
    long startOfBuffer = 0;
    Set<String> seenInOverlap = new HashSet<>();
    boolean first = true;
    // A block opened longer ago than maxBlock, by its detector (-1: none) and its line.
    int pending = -1;
    long pendingLine = 0;
    while (true) {
      if (!first && buf.length < carried + chunk) {
        // the small buffer filled up (the size was only a hint), or a block is carried
        buf = java.util.Arrays.copyOf(buf, Math.max(overlap, carried) + chunk);
      }
      int wanted = Math.min(chunk, buf.length - carried);
      int n = in.readNBytes(buf, carried, wanted);
      if (n == 0 && !first) {
        break;
      }
      int len = carried + n;
      String text = new String(buf, 0, len, StandardCharsets.ISO_8859_1);
      BitSet present = keywords.find(buf, len);
      boolean[] active = new boolean[withRegex.size()];
      for (int i : candidates) {
        active[i] = anyPresent(keywordsOf.get(i), present);
      }
      if (pending >= 0) {
        // From before the carried tail: the end may straddle the chunks' boundary.
        com.google.re2j.Matcher end = closingOf[pending].matcher(
            java.nio.CharBuffer.wrap(text, Math.max(0, carried - OPENING), len));
        if (end.find()) { // the block's end, as the regex over the whole blob would find it
          found.add(new SecretFinding(withRegex.get(pending).id(), pendingLine));
          if (found.size() >= maxFindings) {
            return found;
          }
          pending = -1;
        }
      }
      int[][] starts = anchoredStarts(buf, len, active);
      Set<String> seenNow = new HashSet<>();
      for (int i : candidates) {
        if (!active[i]) {
          continue;
        }
        SecretDetector d = withRegex.get(i);
        Starts at = new Starts(text, len, starts[i], searchOf.get(i), anchoredOf.get(i),
            d.prefilter(), c -> strongEnough(d, d.secretOf(c)));
        for (Match candidate; (candidate = at.next()) != null; ) {
          if (!strongEnough(d, d.secretOf(candidate))) {
            continue; // the fast match holds the same secret group; most candidates end here
          }
          Match m = d.fast() != null ? widen(d, text, candidate) : candidate;
          if (!first && m.end() <= carried) {
            continue; // wholly in the overlap: the buffer before saw it whole
          }
          String key = d.id() + "@" + (startOfBuffer + m.start());
          if (seenInOverlap.contains(key) || !seenNow.add(key) || !isFinding(i, m, text, path)) {
            continue;
          }
          found.add(new SecretFinding(d.id(), linesBefore + newlines(buf, 0, m.start()) + 1));
          if (found.size() >= maxFindings) {
            return found;
          }
        }
      }
      if (n < wanted) {
        break; // the end of the blob
      }
      int keep = Math.min(overlap, len);
      OpenBlock open = openBlock(text, len, candidates, active, starts);
      if (open != null && len - open.offset() > keep) {
        long line = linesBefore + newlines(buf, 0, open.offset()) + 1;
        if (len - open.offset() <= maxBlock) {
          keep = len - open.offset(); // read on with the block's start, to find its end
        } else if (closingOf[open.detector()] != null) {
          pending = open.detector();
          pendingLine = line;
        } else {
          // Fail closed: a block this long is not read to its end in one buffer.
          found.add(new SecretFinding(withRegex.get(open.detector()).id(), line));
          if (found.size() >= maxFindings) {
            return found;
          }
        }
      }
      linesBefore += newlines(buf, 0, len - keep);
      startOfBuffer += len - keep;
      System.arraycopy(buf, len - keep, buf, 0, keep);
      carried = keep;
      seenInOverlap = seenNow;
      first = false;
    }
    return found;
  }

  /** A block a detector of {@link #openingOf} opened at an offset of the buffer. */
  private record OpenBlock(int detector, int offset) {}

  /**
   * The block a detector of {@link #openingOf} opened last in the buffer, if its regex does not
   * match from there within it; else null. The last opening is enough: an
   * earlier one its regex did not match either runs to the last one's own {@code KEY-----}, or
   * ends where the last one's block does, which the next buffer then holds whole.
   */
  private OpenBlock openBlock(String text, int len, int[] candidates, boolean[] active,
      int[][] starts) {
    OpenBlock open = null;
    for (int i : candidates) {
      if (openingOf[i] == null || !active[i] || starts[i] == null) {
        continue;
      }
      for (int k = starts[i].length - 1; k >= 0; k--) {
        int s = starts[i][k];
        // An opening is a header line: a view of the text (no copy) a line's length long.
        if (!openingOf[i].matcher(java.nio.CharBuffer.wrap(text, s, Math.min(len, s + OPENING)))
            .lookingAt()) {
          continue;
        }
        if (!withRegex.get(i).regex().matcher(java.nio.CharBuffer.wrap(text, s, len)).lookingAt()
            && (open == null || s < open.offset())) {
          open = new OpenBlock(i, s);
        }
        break;
      }
    }
    return open;
  }

  /**
   * For each active anchored detector, the sorted offsets where one of its anchors starts; null
   * for a detector that is not anchored (its regex is run over the whole buffer).
   */
  private int[][] anchoredStarts(byte[] buf, int len, boolean[] active) {
    int[][] starts = new int[withRegex.size()][];
    int[] counts = new int[withRegex.size()];
    boolean any = false;
    for (int d = 0; d < withRegex.size(); d++) {
      if (active[d] && !withRegex.get(d).anchors().isEmpty()) {
        starts[d] = new int[16];
        any = true;
      }
    }
    if (!any) {
      return starts;
    }
    anchors.forEach(buf, len, (k, end) -> {
      for (int d : anchorUsers[k]) {
        if (starts[d] != null) {
          if (counts[d] == starts[d].length) {
            starts[d] = java.util.Arrays.copyOf(starts[d], counts[d] * 2);
          }
          starts[d][counts[d]++] = end - anchorLength[k];
        }
      }
    });
    for (int d = 0; d < starts.length; d++) {
      if (starts[d] != null) {
        starts[d] = java.util.Arrays.stream(starts[d], 0, counts[d]).sorted().distinct()
            .toArray();
      }
    }
    return starts;
  }

  /**
   * The matches of one detector in one buffer, left to right, every one of them RE2/J's. An
   * unanchored detector: RE2/J's search from where the match before ended, one pass over the
   * buffer. An anchored detector: at each offset where one of its anchors starts (every one of its
   * matches starts at one), java.util.regex first says cheaply whether a match can start there
   * (RE2/J has no DFA, and its NFA costs some 30 µs an anchor: 40 times slower on ordinary code),
   * and only then RE2/J's anchored match gives it. Such a match may read far (gitleaks' curl
   * rules read to the end of the line, and java.util.regex backtracks: a line of "curl curl …"
   * cost its length squared or worse), so the anchored matches of a buffer, Java's and RE2/J's,
   * may read {@value #READ_BUDGET} times its length in all; past that, the detector goes on with
   * RE2/J's search alone, from the next anchor. Either way a buffer costs each detector a few
   * passes at most.
   */
  private static final class Starts {
    private final String text;
    private final int len;
    private final int[] offsets;
    private final com.google.re2j.Pattern search;
    private final com.google.re2j.Pattern anchored;
    private final long[] budget;
    private Matcher searching;
    private Matcher anchoring;
    private final java.util.regex.Pattern prefilter;
    private java.util.regex.Matcher quick;
    private final Predicate<Match> worthIt;
    private int next;
    private int free;

    Starts(String text, int len, int[] offsets, com.google.re2j.Pattern search,
        com.google.re2j.Pattern anchored, java.util.regex.Pattern prefilter,
        Predicate<Match> worthIt) {
      this.prefilter = prefilter;
      this.worthIt = worthIt;
      this.text = text;
      this.len = len;
      this.offsets = offsets;
      this.search = search;
      this.anchored = anchored;
      this.budget = new long[] {(long) READ_BUDGET * len};
    }

    Match next() {
      if (offsets == null) {
        return prefilter == null || searching != null ? searchFrom(free) : quickSearch();
      }
      while (next < offsets.length) {
        int at = offsets[next++];
        if (at < free) {
          continue; // inside the match before, as a search would skip it
        }
        if (searching != null || budget[0] < 0) {
          return searchFrom(at);
        }
        try {
          if (prefilter != null) {
            if (!quickMatcher().region(at, len).lookingAt()) {
              continue; // no match starts here: RE2/J need not be asked
            }
            if (!worthIt.test(javaMatch(quick))) {
              continue; // its secret is too weak (RE2/J's match holds the same groups)
            }
          }
          Match found = anchoredAt(at);
          if (found != null) {
            free = Math.max(found.end(), at + 1);
            return found;
          }
        } catch (Counted.Spent e) {
          return searchFrom(at);
        }
      }
      return null;
    }

    /** An unanchored detector: Java finds where a match may start, RE2/J matches there. */
    private Match quickSearch() {
      try {
        while (free <= len && quickMatcher().region(free, len).find()) {
          int at = quick.start();
          if (worthIt.test(javaMatch(quick))) {
            Match found = anchoredAt(at);
            if (found != null) {
              free = Math.max(found.end(), at + 1);
              return found;
            }
          }
          free = Math.max(quick.end(), at + 1);
        }
        free = len + 1;
        return null;
      } catch (Counted.Spent e) {
        return searchFrom(free);
      }
    }

    private java.util.regex.Matcher quickMatcher() {
      if (quick == null) {
        quick = prefilter.matcher(new Counted(text, 0, len, budget));
        quick.useTransparentBounds(true).useAnchoringBounds(false);
      }
      return quick;
    }

    /** RE2/J's match starting at {@code at}, or null. */
    private Match anchoredAt(int at) {
      // One character before the anchor, so that a leading \b sees what precedes it.
      int from = Math.max(0, at - 1);
      Counted view = new Counted(text, from, len, budget);
      Matcher m;
      if (at == 0) {
        m = search.matcher(view);
      } else if (anchoring == null) {
        m = anchoring = anchored.matcher(view);
      } else {
        m = anchoring.reset(view);
      }
      if (!m.lookingAt()) {
        return null;
      }
      return at == 0 ? Match.of(m, 0) : withoutFirst(m, from);
    }

    private Match searchFrom(int from) {
      if (searching == null) {
        searching = search.matcher(text);
      }
      if (from > len || !searching.find(from)) {
        free = len + 1;
        next = offsets == null ? 0 : offsets.length;
        return null;
      }
      free = Math.max(searching.end(), searching.start() + 1);
      return Match.of(searching, 0);
    }

    private static Match javaMatch(java.util.regex.Matcher m) {
      List<String> groups = new ArrayList<>(m.groupCount() + 1);
      for (int g = 0; g <= m.groupCount(); g++) {
        groups.add(m.start(g) < 0 ? null : m.group(g));
      }
      return new Match(m.start(), m.end(), groups);
    }

    /** A match of {@code (?s:.)(?:regex)} on text from {@code from}: regex's own match. */
    private static Match withoutFirst(Matcher m, int from) {
      List<String> groups = new ArrayList<>(m.groupCount() + 1);
      groups.add(m.group().substring(1));
      for (int g = 1; g <= m.groupCount(); g++) {
        groups.add(m.group(g));
      }
      return new Match(from + m.start() + 1, from + m.end(), groups);
    }
  }

  /** How many characters the anchored matches of one buffer may read, per character of it. */
  static final int READ_BUDGET = 16;

  /** Text from an offset, whose reads are counted against a budget shared by its views. */
  private static final class Counted implements CharSequence {
    /** Thrown when the budget is spent: no stack trace, it is not an error. */
    static final class Spent extends RuntimeException {
      Spent() {
        super("read budget spent", null, false, false);
      }
    }

    private final String text;
    private final int from;
    private final int to;
    private final long[] budget;

    Counted(String text, int from, int to, long[] budget) {
      this.text = text;
      this.from = from;
      this.to = to;
      this.budget = budget;
    }

    @Override
    public char charAt(int i) {
      if (--budget[0] < 0) {
        throw new Spent();
      }
      return text.charAt(from + i);
    }

    @Override
    public int length() {
      return to - from;
    }

    @Override
    public CharSequence subSequence(int start, int end) {
      return text.substring(from + start, from + end);
    }

    @Override
    public String toString() {
      return text.substring(from, to);
    }
  }

  /**
   * The detector's own match around a candidate its fast regex found: the full regex, run only
   * near the candidate, gives the match gitleaks would report (its allowlists may look at the
   * part the fast regex leaves out). Falls back to the candidate itself.
   */
  private static Match widen(SecretDetector d, String text, Match candidate) {
    // The stripped prefixes match only [\w.-]: the full match starts in the run of those just
    // left of the candidate.
    int from = candidate.start();
    while (from > 0 && candidate.start() - from < WIDEN && wordish(text.charAt(from - 1))) {
      from--;
    }
    Matcher full = d.regex().matcher(text.substring(from, candidate.end()));
    while (full.find()) {
      if (full.end() + from > candidate.start()) {
        return Match.of(full, from);
      }
    }
    return candidate;
  }

  private static boolean wordish(char c) {
    return c == '.' || c == '-' || c == '_' || Character.isLetterOrDigit(c);
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
  /** Gitleaks' entropy check, and for its generic rules a digit in the secret. */
  private static boolean strongEnough(SecretDetector d, String secret) {
    if (d.entropy() > 0) {
      if (SecretDetector.shannonEntropy(secret) <= d.entropy()) {
        return false;
      }
      return !isGeneric(d.id()) || secret.chars().anyMatch(Character::isDigit);
    }
    return true;
  }

  private boolean isFinding(int i, Match m, String text, String path) {
    SecretDetector d = withRegex.get(i);
    String secret = d.secretOf(m);
    if (!strongEnough(d, secret)) {
      return false;
    }
    String match = m.group();
    String line = lineAround(text, m.start(), m.end());
    // The global allowlist's paths quiet only the generic detectors (see quietedByPath); its
    // regexes and stopwords, which read the candidate itself, apply to every detector whose
    // match is a token. Not to a block's (a private key's, from its BEGIN to its END), where
    // they would read a whole key: a "Comment: false" armour header, or a decoy line "-----BEGIN
    // X PRIVATE KEY----- false" whose match runs into the real key's BEGIN, let a key land.
    if (openingOf[i] == null && detectors.globalAllowlist()
        .allows(isGeneric(d.id()) ? path : "", secret, match, line)) {
      return false;
    }
    for (SecretDetector.Allowlist a : d.allowlists()) {
      if (a.allows(path, secret, match, line)) {
        return false;
      }
    }
    return true;
  }

  /**
   * How much of a match's line the allowlists see on either side of it. Gitleaks gives them the
   * whole line; a line of a quarter MiB holding thousands of candidates would then cost its
   * length for each (1.5 s for one such chunk). Cut, an allowlist regex can only find less to
   * allow, unless it looks at where the cut falls.
   */
  static final int LINE_CONTEXT = 1024;

  private static String lineAround(String text, int start, int end) {
    int from = start;
    while (from > 0 && start - from < LINE_CONTEXT && text.charAt(from - 1) != '\n') {
      from--;
    }
    int to = end;
    while (to < text.length() && to - end < LINE_CONTEXT && text.charAt(to) != '\n') {
      to++;
    }
    return text.substring(from, to);
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
