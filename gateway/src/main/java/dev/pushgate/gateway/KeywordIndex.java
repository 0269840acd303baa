package dev.pushgate.gateway;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * Finds which of many keywords occur in a buffer, in one pass whatever their number (an
 * Aho–Corasick automaton, compiled to a dense table over bytes). ASCII letters are compared
 * without case, as gitleaks compares its keywords. This is the secret scanner's prefilter: a
 * detector whose keywords do not occur in a chunk never runs its regex on it.
 */
final class KeywordIndex {
  /**
   * Each byte's class: the bytes no keyword holds share class 0, so the table has a row of a few
   * dozen entries per state instead of 256, small enough to stay in the CPU's cache.
   */
  private final int[] classOf = new int[256];
  private final int classes;
  private final int[] next;
  /** For each state, the keywords that end there (own and by suffix links). */
  private final int[][] output;

  KeywordIndex(List<String> keywords) {
    List<int[]> go = new ArrayList<>();
    List<List<Integer>> out = new ArrayList<>();
    go.add(newRow());
    out.add(new ArrayList<>());
    for (int k = 0; k < keywords.size(); k++) {
      int state = 0;
      for (byte b : keywords.get(k).getBytes(StandardCharsets.ISO_8859_1)) {
        int c = lower(b);
        if (go.get(state)[c] < 0) {
          go.get(state)[c] = go.size();
          go.add(newRow());
          out.add(new ArrayList<>());
        }
        state = go.get(state)[c];
      }
      out.get(state).add(k);
    }
    int[] fail = new int[go.size()];
    ArrayDeque<Integer> queue = new ArrayDeque<>();
    for (int c = 0; c < 256; c++) {
      int s = go.get(0)[c];
      if (s < 0) {
        go.get(0)[c] = 0;
      } else {
        fail[s] = 0;
        queue.add(s);
      }
    }
    while (!queue.isEmpty()) {
      int r = queue.poll();
      out.get(r).addAll(out.get(fail[r]));
      for (int c = 0; c < 256; c++) {
        int s = go.get(r)[c];
        if (s < 0) {
          go.get(r)[c] = go.get(fail[r])[c];
        } else {
          fail[s] = go.get(fail[r])[c];
          queue.add(s);
        }
      }
    }
    int n = 1;
    for (String k : keywords) {
      for (byte b : k.getBytes(StandardCharsets.ISO_8859_1)) {
        if (classOf[lower(b)] == 0) {
          classOf[lower(b)] = n++;
        }
      }
    }
    for (int c = 'A'; c <= 'Z'; c++) {
      classOf[c] = classOf[c + 32];
    }
    classes = n;
    int[] representative = new int[n];
    for (int c = 255; c >= 0; c--) {
      representative[classOf[c]] = c; // class 0 ends up with some byte no keyword holds
    }
    representative[0] = firstOutside(classOf);
    next = new int[go.size() * n];
    output = new int[go.size()][];
    for (int s = 0; s < go.size(); s++) {
      for (int c = 0; c < n; c++) {
        next[s * n + c] = go.get(s)[lower((byte) representative[c])];
      }
      output[s] = out.get(s).stream().mapToInt(Integer::intValue).distinct().toArray();
    }
  }

  private static int firstOutside(int[] classOf) {
    for (int c = 0; c < 256; c++) {
      if (classOf[c] == 0) {
        return c;
      }
    }
    throw new IllegalStateException("every byte is in a keyword");
  }

  private static int[] newRow() {
    int[] row = new int[256];
    java.util.Arrays.fill(row, -1);
    return row;
  }

  private static int lower(byte b) {
    int c = b & 0xff;
    return c >= 'A' && c <= 'Z' ? c + 32 : c;
  }

  /** Receives each occurrence: the keyword's index and the offset just past its end. */
  interface Hits {
    void hit(int keyword, int end);
  }

  /** Every occurrence of every keyword in {@code buf[0, len)}, in order of their ends. */
  void forEach(byte[] buf, int len, Hits hits) {
    int state = 0;
    for (int i = 0; i < len; i++) {
      state = next[state * classes + classOf[buf[i] & 0xff]];
      for (int k : output[state]) {
        hits.hit(k, i + 1);
      }
    }
  }

  /** The indexes of the keywords that occur in {@code buf[0, len)}. */
  BitSet find(byte[] buf, int len) {
    BitSet found = new BitSet();
    int state = 0;
    for (int i = 0; i < len; i++) {
      state = next[state * classes + classOf[buf[i] & 0xff]];
      int[] o = output[state];
      for (int k : o) {
        found.set(k);
      }
    }
    return found;
  }
}
