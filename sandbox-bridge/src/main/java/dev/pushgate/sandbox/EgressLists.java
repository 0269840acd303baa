package dev.pushgate.sandbox;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The fixed lists the effective allowlist is built from: the curated baseline, GitHub's domains
 * and the deny list. Embedded as data files, one entry per line, {@code #} starts a comment.
 */
public record EgressLists(List<String> baseline, List<String> github, List<String> deny) {

  public EgressLists {
    baseline = checked(baseline, "baseline");
    github = checked(github, "github");
    deny = checked(deny, "deny");
  }

  /** The lists shipped in this module's resources. */
  public static EgressLists embedded() {
    return new EgressLists(
        parse(resource("egress-baseline.txt"), "egress-baseline.txt"),
        parse(resource("egress-github.txt"), "egress-github.txt"),
        parse(resource("egress-deny.txt"), "egress-deny.txt"));
  }

  /**
   * Parses a list file.
   *
   * @throws IllegalArgumentException naming the file, the line and what is wrong with it
   */
  public static List<String> parse(String text, String name) {
    List<String> out = new ArrayList<>();
    String[] lines = text.split("\r?\n", -1);
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i];
      int hash = line.indexOf('#');
      String entry = (hash >= 0 ? line.substring(0, hash) : line).strip();
      if (entry.isEmpty()) {
        continue;
      }
      try {
        HostPattern.parse(entry);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(name + " line " + (i + 1) + ": " + e.getMessage());
      }
      out.add(entry);
    }
    return out;
  }

  private static List<String> checked(List<String> list, String name) {
    if (list == null) {
      throw new IllegalArgumentException("the " + name + " egress list is missing");
    }
    for (String entry : list) {
      try {
        HostPattern.parse(entry);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(name + " egress list: " + e.getMessage());
      }
    }
    return List.copyOf(list);
  }

  private static String resource(String name) {
    try (InputStream in = EgressLists.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read resource " + name, e);
    }
  }
}
