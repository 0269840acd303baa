package dev.pushgate.gitconfig;

import java.util.Random;

/** Seeded random strings weighted towards what git-config syntax treats specially. */
final class Fuzz {
  private static final String SPECIAL = "\"\\#;=[]. \t\r\b\f\u000b\u007f";
  private static final String[] UNICODE = {"é", "ß", "中", "\u2028", "\u00a0", "😀", "\ufeff"};

  private final Random random;

  Fuzz(long seed) {
    this.random = new Random(seed);
  }

  String string(int maxLength) {
    int length = random.nextInt(maxLength + 1);
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < length; i++) {
      int kind = random.nextInt(100);
      if (kind < 45) {
        s.append((char) (0x21 + random.nextInt(0x7e - 0x21 + 1)));
      } else if (kind < 72) {
        s.append(SPECIAL.charAt(random.nextInt(SPECIAL.length())));
      } else if (kind < 74) {
        s.append('\n');
      } else if (kind < 87) {
        s.append(UNICODE[random.nextInt(UNICODE.length)]);
      } else if (kind < 98) {
        s.append((char) (1 + random.nextInt(0x1f)));
      } else if (kind < 99) {
        // an unpaired surrogate: not representable in UTF-8
        s.append((char) (0xd800 + random.nextInt(0x800)));
      } else {
        s.append('\0');
      }
    }
    return s.toString();
  }

  /** Only characters from {@code alphabet}. */
  String from(String alphabet, int minLength, int maxLength) {
    int length = minLength + random.nextInt(maxLength - minLength + 1);
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < length; i++) {
      s.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return s.toString();
  }

  int nextInt(int bound) {
    return random.nextInt(bound);
  }

  static boolean hasUnpairedSurrogate(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return true;
      }
    }
    return false;
  }
}
