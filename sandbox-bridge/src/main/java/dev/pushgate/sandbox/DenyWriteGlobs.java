package dev.pushgate.sandbox;

import dev.pushgate.policy.ContentGlob;
import dev.pushgate.policy.SecretFiles;
import dev.pushgate.types.UntrustedText;
import java.util.ArrayList;
import java.util.List;

/**
 * File-name patterns no run may write inside a writable mount, and whether the rules set them. The
 * patterns are {@link ContentGlob} file-name globs, the content rules' language: {@code *} and
 * {@code ?}, matched ignoring case, {@code !} for an exception ({@code !.env.example}); the
 * name-deny layer matches them as {@link ContentGlob#listMatches} does.
 *
 * @param globs file-name patterns ({@code .env}, {@code *.key}, {@code !.env.example}); no
 *     {@code /}
 * @param explicit true when the workspace rules set the list, false for the default
 */
public record DenyWriteGlobs(List<String> globs, boolean explicit) {
  /** The default list, used when the rules say nothing: the secret files. */
  public static final List<String> DEFAULT_GLOBS = SecretFiles.GLOBS;

  /**
   * The directories a package manager fills with what packages ship: pip's {@code site-packages}
   * (Debian's {@code dist-packages}) and npm's {@code node_modules}. Below one, the name-deny
   * layer lets a name the globs deny be written (pip vendors certifi's {@code cacert.pem}; npm
   * packages ship test keys), and refuses carrying a directory out of one. Only the sandbox reads
   * this list: a push is judged by the content rules wherever its files lie. docs/sandbox.md,
   * "Dependency trees", says why this opens no way to a secret file.
   */
  public static final List<String> DEPENDENCY_TREES =
      List.of("site-packages", "dist-packages", "node_modules");

  /** The default, not set by the rules. */
  public static final DenyWriteGlobs DEFAULT = new DenyWriteGlobs(DEFAULT_GLOBS, false);

  public DenyWriteGlobs {
    if (globs == null) {
      throw new SandboxRequestException("denyWriteGlobs", "denyWriteGlobs is missing");
    }
    for (int i = 0; i < globs.size(); i++) {
      String g = globs.get(i);
      String field = "denyWriteGlobs[" + i + "]";
      if (g == null || g.isBlank()) {
        throw new SandboxRequestException(field, field + " is empty");
      }
      if (g.indexOf('/') >= 0 || g.indexOf('\\') >= 0 || UntrustedText.hasControl(g)) {
        throw new SandboxRequestException(
            field, field + " must be a file name pattern without /: " + UntrustedText.printable(g));
      }
      try {
        ContentGlob.name(g);
      } catch (IllegalArgumentException e) {
        throw new SandboxRequestException(field, field + " is not a file-name glob: "
            + UntrustedText.printable(e.getMessage()));
      }
    }
    try {
      ContentGlob.checkList(globs.stream().map(ContentGlob::name).toList());
    } catch (IllegalArgumentException e) {
      throw new SandboxRequestException("denyWriteGlobs",
          "denyWriteGlobs: " + UntrustedText.printable(e.getMessage()));
    }
    globs = List.copyOf(globs);
  }

  /**
   * How this list weakens the default, as far as its text shows: the default's globs it lacks
   * and the exceptions it adds. Empty when it keeps every glob and adds no exception.
   */
  public List<String> weakenedFromDefault() {
    List<String> out = new ArrayList<>();
    for (String g : DEFAULT_GLOBS) {
      if (!g.startsWith("!") && !globs.contains(g)) {
        out.add(g);
      }
    }
    for (String g : globs) {
      if (g.startsWith("!") && !DEFAULT_GLOBS.contains(g)) {
        out.add(g);
      }
    }
    return out;
  }

  /**
   * Whether the name-deny layer refuses writing {@code path} (inside a writable mount) for its
   * name: its last component matches {@code globs} as the layer matches them, and no directory on
   * the way is a {@link #DEPENDENCY_TREES dependency tree}. For readers that explain a refusal the
   * layer made (a tool's output names the path, not why).
   */
  public static boolean deniesName(List<String> globs, String path) {
    String[] parts = path.split("/");
    for (int i = 0; i < parts.length - 1; i++) {
      if (DEPENDENCY_TREES.contains(parts[i])) {
        return false;
      }
    }
    String name = parts.length == 0 ? "" : parts[parts.length - 1];
    return !name.isEmpty()
        && ContentGlob.listMatches(globs.stream().map(ContentGlob::name).toList(), name);
  }

  /** A list the rules set. */
  public static DenyWriteGlobs explicit(List<String> globs) {
    return new DenyWriteGlobs(globs, true);
  }
}
