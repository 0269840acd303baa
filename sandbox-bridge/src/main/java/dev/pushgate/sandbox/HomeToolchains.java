package dev.pushgate.sandbox;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The launcher's toolchains under its home directory, which the sandbox shows read-only at the
 * same paths although the rest of the home is an empty tmpfs: the directories on the run's {@code
 * PATH} below {@code $HOME} (pyenv's shims, cargo's and Go's {@code bin}, nvm's and sdkman's
 * versions). A pyenv shim needs all of {@code ~/.pyenv} and a rustup proxy in {@code ~/.cargo/bin}
 * needs {@code ~/.rustup}, so what is shown is the toolchain's own directory directly under the
 * home ({@code ~/.pyenv} for {@code ~/.pyenv/shims}), never the home itself.
 *
 * <p>Never shown: a directory that is, or is inside, one of the secret paths a run may not read
 * ({@link SandboxPlanner#SECRET_READ_DENY}); the secret paths inside a shown directory ({@code
 * ~/.cargo/credentials.toml}) are hidden by the launch as every secret path inside a mount is. Of
 * the catch-all directories {@code ~/.config} and {@code ~/.local}, which hold many programs'
 * tokens under names no list can know, only the {@code PATH} directory itself is shown.
 */
final class HomeToolchains {
  /** Directories under the home that hold other programs' settings and tokens, not a toolchain. */
  static final List<String> CATCH_ALL = List.of(".config", ".local");

  /** What a toolchain directory needs beside it: rustup's proxies in ~/.cargo/bin run ~/.rustup. */
  private static final List<List<String>> COMPANIONS = List.of(List.of(".cargo", ".rustup"));

  private HomeToolchains() {}

  /**
   * The directories to show, as absolute paths, none inside another; empty when {@code home} or
   * {@code path} is missing.
   *
   * @param home the launcher's home directory ({@code HOME})
   * @param path the run's {@code PATH}
   */
  static List<String> of(String home, String path) {
    if (home == null || path == null || !home.startsWith("/") || home.equals("/")) {
      return List.of();
    }
    Path h;
    try {
      h = Path.of(home).normalize();
    } catch (InvalidPathException e) {
      return List.of();
    }
    Set<String> out = new LinkedHashSet<>();
    for (String entry : path.split(":")) {
      Path dir;
      try {
        dir = Path.of(entry).normalize();
      } catch (InvalidPathException e) {
        continue;
      }
      if (!entry.startsWith("/") || entry.contains("/../") || entry.endsWith("/..")
          || !dir.startsWith(h) || dir.equals(h)) {
        continue;
      }
      String first = h.relativize(dir).getName(0).toString();
      Path root = CATCH_ALL.contains(first) ? dir : h.resolve(first);
      if (!secret(h, root)) {
        out.add(root.toString());
        for (List<String> pair : COMPANIONS) {
          if (pair.get(0).equals(first)) {
            out.add(h.resolve(pair.get(1)).toString());
          }
        }
      }
    }
    List<String> roots = new ArrayList<>();
    for (String r : out) {
      if (out.stream().noneMatch(o -> !o.equals(r) && BubblewrapArgv.under(r, o))) {
        roots.add(r);
      }
    }
    return List.copyOf(roots);
  }

  /** Whether {@code dir} is a secret path of the home or inside one. */
  private static boolean secret(Path home, Path dir) {
    for (String rel : SandboxPlanner.SECRET_READ_DENY) {
      if (dir.startsWith(home.resolve(rel))) {
        return true;
      }
    }
    return false;
  }

  /**
   * Why {@code dir} may not be shown after all, or null: followed through its symbolic links it
   * is, or lies inside, a secret path (a {@code ~/tools} that links to {@code ~/.ssh} would show
   * the keys at {@code ~/tools}). A directory that cannot be resolved is not shown either.
   */
  static String leadsToASecret(String home, Path dir) {
    Path real;
    try {
      real = dir.toRealPath();
    } catch (java.io.IOException | SecurityException e) {
      return "it cannot be resolved (" + e.getMessage() + ")";
    }
    for (String rel : SandboxPlanner.SECRET_READ_DENY) {
      Path secret = Path.of(home).resolve(rel);
      try {
        if (real.startsWith(secret.toRealPath())) {
          return "it leads to " + secret + ", which a run may not read";
        }
      } catch (java.io.IOException | SecurityException e) {
        // No such secret here.
      }
    }
    return null;
  }

  /** The secret paths of the home that lie inside one of {@code shown}, in every spelling. */
  static List<String> secretsInside(String home, List<String> shown) {
    Set<String> out = new LinkedHashSet<>();
    for (String rel : SandboxPlanner.SECRET_READ_DENY) {
      String p = Path.of(home).resolve(rel).toString();
      if (BubblewrapArgv.underAny(p, shown)) {
        out.addAll(DenySpellings.of(p));
      }
    }
    return List.copyOf(out);
  }
}
