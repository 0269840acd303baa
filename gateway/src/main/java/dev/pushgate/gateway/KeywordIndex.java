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
    next = new int[go.size() * 256];
    output = new int[go.size()][];
    for (int s = 0; s < go.size(); s++) {
      System.arraycopy(go.get(s), 0, next, s * 256, 256);
      output[s] = out.get(s).stream().mapToInt(Integer::intValue).distinct().toArray();
    }
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

  /** The indexes of the keywords that occur in {@code buf[0, len)}. */
  BitSet find(byte[] buf, int len) {
    BitSet found = new BitSet();
    int state = 0;
    for (int i = 0; i < len; i++) {
      state = next[(state << 8) + lower(buf[i])];
      int[] o = output[state];
      for (int k : o) {
        found.set(k);
      }
    }
    return found;
  }
}
