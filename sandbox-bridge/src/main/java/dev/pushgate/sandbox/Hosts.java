package dev.pushgate.sandbox;

import dev.pushgate.types.UntrustedText;
import java.net.IDN;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Brings a host name to the one spelling rules are compared in: lower case, no trailing dot, IDNs
 * in punycode, IPv4 in dotted-decimal (whatever numeric form it came in, as a URL parser would
 * read it), IPv6 in RFC 5952 form inside brackets, IPv4-mapped IPv6 as its IPv4 address.
 */
final class Hosts {
  // IDNA treats the ideographic and full-width full stops as dots too.
  private static final Pattern SEPARATORS = Pattern.compile("[.\u3002\uFF0E\uFF61]");

  private Hosts() {}

  /**
   * The canonical spelling of a host.
   *
   * @throws IllegalArgumentException with a short reason when it is not a host
   */
  static String canonical(String raw) {
    if (raw == null || raw.isEmpty()) {
      throw new IllegalArgumentException("a host is empty");
    }
    if (raw.length() > 1024) {
      throw new IllegalArgumentException("a host name is longer than 253 characters");
    }
    checkCharacters(raw, "host");
    if (raw.startsWith("[")) {
      if (!raw.endsWith("]") || raw.length() < 3) {
        throw new IllegalArgumentException("not a valid IPv6 address: " + UntrustedText.printable(raw));
      }
      return ipv6(raw.substring(1, raw.length() - 1), raw);
    }
    if (raw.indexOf(':') >= 0) {
      return ipv6(raw, raw);
    }
    List<String> labels = asciiLabels(raw);
    if (endsInNumber(labels)) {
      return ipv4(labels, raw);
    }
    for (String label : labels) {
      checkLabel(label, raw);
    }
    return String.join(".", labels);
  }

  /**
   * Splits a domain-like name into lower-case ASCII labels: one trailing dot dropped, IDN labels
   * (and the full-width dots IDNA treats as separators) turned into punycode.
   */
  static List<String> asciiLabels(String raw) {
    String[] parts = SEPARATORS.split(raw, -1);
    int n = parts.length;
    if (n > 1 && parts[n - 1].isEmpty()) {
      n--;
    }
    List<String> labels = new ArrayList<>();
    int length = 0;
    for (int i = 0; i < n; i++) {
      String part = parts[i];
      if (part.isEmpty()) {
        throw new IllegalArgumentException("host has an empty label: " + UntrustedText.printable(raw));
      }
      String label;
      if (isAscii(part)) {
        label = part.toLowerCase(Locale.ROOT);
      } else {
        try {
          label = IDN.toASCII(part, IDN.ALLOW_UNASSIGNED).toLowerCase(Locale.ROOT);
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(
              "not a valid internationalised domain name: " + UntrustedText.printable(raw));
        }
      }
      if (label.length() > 63) {
        throw new IllegalArgumentException(
            "host has a label longer than 63 characters: " + UntrustedText.printable(raw));
      }
      length += label.length() + (i > 0 ? 1 : 0);
      labels.add(label);
    }
    if (length > 253) {
      throw new IllegalArgumentException("a host name is longer than 253 characters");
    }
    return List.copyOf(labels);
  }

  private static boolean isAscii(String s) {
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) > 0x7f) {
        return false;
      }
    }
    return true;
  }

  static void checkLabel(String label, String raw) {
    if (label.length() > 63) {
      throw new IllegalArgumentException(
          "host has a label longer than 63 characters: " + UntrustedText.printable(raw));
    }
    for (int i = 0; i < label.length(); i++) {
      char c = label.charAt(i);
      boolean ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
      if (!ok) {
        throw new IllegalArgumentException(
            String.format("host has a forbidden character %#04x: %s", (int) c, UntrustedText.printable(raw)));
      }
    }
  }

  static void checkCharacters(String raw, String what) {
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c <= 0x20 || c == 0x7f || c == '/' || c == '\\' || c == '@' || c == '#' || c == '?') {
        throw new IllegalArgumentException(
            String.format(
                "%s has a forbidden character %#04x at %d: %s", what, (int) c, i, UntrustedText.printable(raw)));
      }
    }
  }

  /**
   * As a URL parser decides: a name whose last label is a number is an IPv4 address, and must
   * then parse as one; {@code 2852039166} and {@code 0xa9.0xfe.0xa9.0xfe} are both 169.254.169.254.
   */
  static boolean endsInNumber(List<String> labels) {
    String last = labels.get(labels.size() - 1);
    if (isDigits(last)) {
      return true;
    }
    return (last.startsWith("0x")) && isHex(last.substring(2));
  }

  private static String ipv4(List<String> parts, String raw) {
    if (parts.size() > 4) {
      throw new IllegalArgumentException("not a valid IPv4 address: " + UntrustedText.printable(raw));
    }
    long[] numbers = new long[parts.size()];
    for (int i = 0; i < parts.size(); i++) {
      numbers[i] = ipv4Number(parts.get(i), raw);
    }
    for (int i = 0; i < numbers.length - 1; i++) {
      if (numbers[i] > 255) {
        throw new IllegalArgumentException("not a valid IPv4 address: " + UntrustedText.printable(raw));
      }
    }
    long last = numbers[numbers.length - 1];
    if (last >= 1L << (8 * (5 - numbers.length))) {
      throw new IllegalArgumentException("not a valid IPv4 address: " + UntrustedText.printable(raw));
    }
    long value = last;
    for (int i = 0; i < numbers.length - 1; i++) {
      value += numbers[i] << (8 * (3 - i));
    }
    return ((value >> 24) & 0xff) + "." + ((value >> 16) & 0xff) + "." + ((value >> 8) & 0xff)
        + "." + (value & 0xff);
  }

  private static long ipv4Number(String part, String raw) {
    int radix = 10;
    String digits = part;
    if (part.startsWith("0x")) {
      radix = 16;
      digits = part.substring(2);
      if (digits.isEmpty()) {
        return 0;
      }
    } else if (part.length() > 1 && part.startsWith("0")) {
      radix = 8;
      digits = part.substring(1);
    }
    // Longer than any valid part: refuse before it can overflow.
    if (digits.isEmpty() || digits.length() > 12) {
      throw new IllegalArgumentException("not a valid IPv4 address: " + UntrustedText.printable(raw));
    }
    try {
      return Long.parseLong(digits, radix);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not a valid IPv4 address: " + UntrustedText.printable(raw));
    }
  }

  private static String ipv6(String text, String raw) {
    int[] groups = parseIpv6(text, raw);
    boolean mapped = true;
    for (int i = 0; i < 5; i++) {
      mapped &= groups[i] == 0;
    }
    if (mapped && groups[5] == 0xffff) {
      return (groups[6] >> 8) + "." + (groups[6] & 0xff) + "." + (groups[7] >> 8) + "."
          + (groups[7] & 0xff);
    }
    return "[" + format(groups) + "]";
  }

  private static int[] parseIpv6(String text, String raw) {
    Supplier<IllegalArgumentException> bad =
        () -> new IllegalArgumentException("not a valid IPv6 address: " + UntrustedText.printable(raw));
    if (text.isEmpty() || text.indexOf('%') >= 0) {
      throw bad.get();
    }
    int gap = text.indexOf("::");
    if (gap >= 0 && text.indexOf("::", gap + 1) >= 0) {
      throw bad.get();
    }
    List<Integer> head = new ArrayList<>();
    List<Integer> tail = new ArrayList<>();
    if (gap >= 0) {
      parseGroups(text.substring(0, gap), head, false, bad);
      parseGroups(text.substring(gap + 2), tail, true, bad);
      if (head.size() + tail.size() > 7) {
        throw bad.get();
      }
    } else {
      parseGroups(text, head, true, bad);
      if (head.size() != 8) {
        throw bad.get();
      }
    }
    int[] groups = new int[8];
    for (int i = 0; i < head.size(); i++) {
      groups[i] = head.get(i);
    }
    for (int i = 0; i < tail.size(); i++) {
      groups[8 - tail.size() + i] = tail.get(i);
    }
    return groups;
  }

  private static void parseGroups(
      String text, List<Integer> out, boolean ipv4Allowed, Supplier<IllegalArgumentException> bad) {
    if (text.isEmpty()) {
      return;
    }
    String[] parts = text.split(":", -1);
    for (int i = 0; i < parts.length; i++) {
      String p = parts[i];
      if (ipv4Allowed && i == parts.length - 1 && p.indexOf('.') >= 0) {
        String[] octets = p.split("\\.", -1);
        if (octets.length != 4) {
          throw bad.get();
        }
        int[] v = new int[4];
        for (int j = 0; j < 4; j++) {
          if (!isDigits(octets[j]) || octets[j].length() > 3) {
            throw bad.get();
          }
          v[j] = Integer.parseInt(octets[j]);
          if (v[j] > 255) {
            throw bad.get();
          }
        }
        out.add((v[0] << 8) | v[1]);
        out.add((v[2] << 8) | v[3]);
        continue;
      }
      if (p.isEmpty() || p.length() > 4 || !isHex(p)) {
        throw bad.get();
      }
      out.add(Integer.parseInt(p, 16));
    }
  }

  /** RFC 5952: lower-case hex, no leading zeros, the first longest run of two or more zeros as ::. */
  private static String format(int[] g) {
    int bestStart = -1;
    int bestLen = 0;
    for (int i = 0; i < 8; ) {
      if (g[i] != 0) {
        i++;
        continue;
      }
      int j = i;
      while (j < 8 && g[j] == 0) {
        j++;
      }
      if (j - i > bestLen && j - i >= 2) {
        bestStart = i;
        bestLen = j - i;
      }
      i = j;
    }
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      if (i == bestStart) {
        b.append("::");
        i += bestLen - 1;
        continue;
      }
      if (b.length() > 0 && b.charAt(b.length() - 1) != ':') {
        b.append(':');
      }
      b.append(Integer.toHexString(g[i]));
    }
    return b.toString();
  }

  private static boolean isDigits(String s) {
    if (s.isEmpty()) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '9') {
        return false;
      }
    }
    return true;
  }

  private static boolean isHex(String s) {
    if (s.isEmpty()) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
        return false;
      }
    }
    return true;
  }
}
