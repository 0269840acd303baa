package dev.pushgate.sandbox;

import dev.pushgate.types.Glob;
import dev.pushgate.types.UntrustedText;
import dev.pushgate.types.WrittenGlob;
import java.util.List;
import java.util.regex.Pattern;

/**
 * One allow or deny entry: an exact host, a leading wildcard {@code *.example.com} (any subdomain
 * at any depth, not the apex) or a middle-label wildcard {@code bedrock.*.amazonaws.com} (exactly
 * one label). One {@code *} at most, and it is always a whole label. It shows in canonical
 * spelling.
 */
final class HostPattern extends WrittenGlob {
  /**
   * {@code *} one whole label, but as the first label any number of them; the parser lets
   * nothing else through.
   */
  private static final Glob.Dialect DIALECT =
      new Glob.Dialect('.', false, false, Glob.DoubleStar.TWO_STARS, true, false);

  private final Pattern regex;

  private HostPattern(String canonical) {
    super(canonical, canonical, DIALECT);
    this.regex = Pattern.compile(compiled().regex());
  }

  /**
   * Parses an entry.
   *
   * @throws IllegalArgumentException naming the entry and what is wrong with it
   */
  static HostPattern parse(String entry) {
    if (entry == null || entry.isBlank()) {
      throw new IllegalArgumentException("an egress entry is empty");
    }
    if (entry.contains("://") || entry.indexOf('/') >= 0) {
      throw new IllegalArgumentException(
          "egress entry must be a bare host name (no scheme, port or path): "
              + UntrustedText.printable(entry));
    }
    for (int i = 0; i < entry.length(); i++) {
      char c = entry.charAt(i);
      if (c <= 0x20 || c == 0x7f || c == '\\' || c == '@' || c == '#' || c == '?') {
        throw new IllegalArgumentException(
            String.format(
                "egress entry has a forbidden character %#04x at %d: %s",
                (int) c, i, UntrustedText.printable(entry)));
      }
    }
    int stars = 0;
    for (int i = 0; i < entry.length(); i++) {
      if (entry.charAt(i) == '*') {
        stars++;
      }
    }
    if (stars > 1) {
      throw new IllegalArgumentException(
          "egress entry has more than one *: " + UntrustedText.printable(entry));
    }
    if (entry.startsWith("[")) {
      if (stars > 0) {
        throw new IllegalArgumentException(
            "an IP address cannot have a wildcard: " + UntrustedText.printable(entry));
      }
      return exact(entry);
    }
    if (entry.indexOf(':') >= 0) {
      if (entry.matches("[^:]*:[0-9]*")) {
        throw new IllegalArgumentException(
            "egress entry must be a bare host name (no scheme, port or path): "
                + UntrustedText.printable(entry));
      }
      throw new IllegalArgumentException(
          "IPv6 addresses are written in brackets: [" + UntrustedText.printable(entry) + "]");
    }
    if (stars == 0) {
      return exact(entry);
    }
    List<String> labels = Hosts.asciiLabels(entry);
    int star = labels.indexOf("*");
    if (star < 0) {
      throw new IllegalArgumentException("* must be a whole label: " + UntrustedText.printable(entry));
    }
    if (star == labels.size() - 1) {
      throw new IllegalArgumentException(
          "a wildcard must be the first label (*.example.com) or a middle label"
              + " (bedrock.*.amazonaws.com): " + UntrustedText.printable(entry));
    }
    List<String> rest = labels.subList(star + 1, labels.size());
    if (Hosts.endsInNumber(rest)) {
      throw new IllegalArgumentException(
          "an IP address cannot have a wildcard: " + UntrustedText.printable(entry));
    }
    if (star == 0 && rest.size() < 2) {
      throw new IllegalArgumentException(
          "wildcard is too broad, it covers a whole top-level domain: " + UntrustedText.printable(entry));
    }
    for (int i = 0; i < labels.size(); i++) {
      if (i != star) {
        Hosts.checkLabel(labels.get(i), entry);
      }
    }
    return new HostPattern(String.join(".", labels));
  }

  private static HostPattern exact(String entry) {
    String canonical;
    try {
      canonical = Hosts.canonical(entry);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("bad egress entry: " + e.getMessage());
    }
    return new HostPattern(canonical);
  }

  /** Whether a host in canonical spelling ({@link Hosts#canonical}) matches. */
  boolean matches(String canonicalHost) {
    return regex.matcher(canonicalHost).matches();
  }
}
