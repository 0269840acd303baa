package dev.pushgate.sandbox;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Where git, on the host, reads or runs what makes up a repository of a read-only mount, as the
 * kernel resolves it: a repository is written, or made to run a program, through any of these
 * that a writable mount holds ({@link MountOverlaps}). For the repository at a root and those
 * directly inside it (a shared {@code repos/}): its git directory (a {@code .git} directory, or
 * what a {@code .git} file or symlink names, read from the repository as git reads it; the root
 * itself when it is a bare repository); the common directory a {@code commondir} names; the
 * object stores of the whole {@code alternates} chain; every symbolic link inside those (a
 * {@code hooks}, {@code refs}, {@code objects} or {@code packed-refs} kept elsewhere); and every
 * path the repository's config names, as the host's git lists it ({@link GitConfigListing}):
 * {@code core.hooksPath} (from the worktree too), {@code core.worktree}, an include's file, and
 * every word with a slash in any value (a program git runs, an option's argument).
 */
final class GitPlaces {
  /** The most a {@code .git} file, a {@code commondir} or a config is read for. */
  private static final int MAX_BYTES = 64 * 1024;
  /** How deep an alternates chain is followed (git's own limit is 5). */
  private static final int MAX_ALTERNATES = 5;

  private GitPlaces() {}

  /** Where git keeps and finds the repositories at {@code root} and directly inside it. */
  static List<Path> of(String root) {
    List<Path> repos = new ArrayList<>(List.of(Path.of(root)));
    try (DirectoryStream<Path> children = Files.newDirectoryStream(Path.of(root))) {
      for (Path child : children) {
        if (Files.isDirectory(child, LinkOption.NOFOLLOW_LINKS)) {
          repos.add(child);
        }
      }
    } catch (IOException | SecurityException e) {
      // not a directory the appliance can list: only the root is looked at
    }
    Set<Path> out = new LinkedHashSet<>();
    for (Path repo : repos) {
      for (Path git : gitDirectoriesOf(repo)) {
        gitDirectory(git, repo, out);
      }
    }
    return List.copyOf(out);
  }

  /** The git directories of {@code repo}: its {@code .git}, or itself when it is bare. */
  private static List<Path> gitDirectoriesOf(Path repo) {
    List<Path> gits = new ArrayList<>();
    if (Files.isRegularFile(repo.resolve("HEAD")) && Files.isDirectory(repo.resolve("objects"))) {
      gits.add(real(repo));
    }
    Path dotGit = repo.resolve(".git");
    if (Files.isDirectory(dotGit)) { // a directory, or a symlink to one
      gits.add(real(dotGit));
    } else if (Files.isRegularFile(dotGit)) { // a gitdir: file, or a symlink to one
      Path named = named(dotGit, repo, GitdirFile.GITDIR_PREFIX);
      if (named != null) {
        gits.add(named);
      }
    }
    return gits;
  }

  /** A git directory, its common directory, their links, config and object stores. */
  private static void gitDirectory(Path git, Path repo, Set<Path> out) {
    if (!out.add(git)) {
      return;
    }
    Path common = named(git.resolve(GitMetadata.COMMONDIR), git, "");
    List<Path> dirs = common == null ? List.of(git) : List.of(git, common);
    if (common != null) {
      out.add(common);
    }
    for (Path dir : dirs) {
      links(dir, out);
      alternates(dir.resolve("objects"), out, 0);
    }
    List<String> listed = GitConfigListing.of(git);
    if (listed == null) { // no git here to ask: the files read as this class reads them
      for (Path dir : dirs) {
        for (String config : List.of("config", "config.worktree")) {
          configured(dir.resolve(config), repo, out);
        }
      }
      return;
    }
    // git runs hooks from the worktree's top, which core.worktree (relative to the git
    // directory) may put elsewhere: a relative hooksPath is read from there too.
    Path worktree = repo;
    for (String entry : listed) {
      if (key(entry).equals("core.worktree") && !value(entry).isEmpty()) {
        Path named = placeOf(git, value(entry));
        worktree = named == null ? worktree : named;
      }
    }
    for (String entry : listed) {
      named(key(entry), value(entry), repo, git, out);
      if (key(entry).equals("core.hookspath") && !value(entry).isEmpty()) {
        add(out, placeOf(worktree, value(entry)));
      }
    }
  }

  private static String key(String entry) {
    int nl = entry.indexOf('\n');
    return (nl < 0 ? entry : entry.substring(0, nl)).toLowerCase(java.util.Locale.ROOT);
  }

  private static String value(String entry) {
    int nl = entry.indexOf('\n');
    return nl < 0 ? "" : entry.substring(nl + 1);
  }

  /**
   * A path like token of a config value: any word with a slash in it (absolute, {@code ~/}, or
   * relative: to the repository, or through a link in it).
   */
  private static final java.util.regex.Pattern PATH_IN_VALUE = java.util.regex.Pattern.compile(
      "(?:^|[\\s\"'=:,!;(])([^\\s\"'=:,!;|&<>()]*/[^\\s\"';|&<>()]*)");

  /**
   * The places one value of the repository's config, as git itself lists it (quotes, escapes,
   * continuations and includes done), names: {@code core.hooksPath} and {@code core.worktree}
   * relative to the repository, an include's file relative to the git directory, and every path
   * in any value (a program's, an option's argument), absolute, home-relative or relative.
   */
  private static void named(String key, String value, Path repo, Path git, Set<Path> out) {
    if (value.isEmpty()) {
      return;
    }
    if (key.equals("core.hookspath") || key.equals("core.worktree")) {
      add(out, placeOf(repo, value));
      add(out, placeOf(git, value));
    } else if (key.endsWith(".path")
        && (key.startsWith("include.") || key.startsWith("includeif."))) {
      add(out, placeOf(git, value));
    }
    java.util.regex.Matcher m = PATH_IN_VALUE.matcher(value);
    while (m.find()) {
      String path = m.group(1);
      add(out, placeOf(repo, path));
      if (!path.startsWith("/") && !path.startsWith("~")) {
        add(out, placeOf(git, path));
      }
    }
  }

  /** A path as git reads it from a config: {@code ~/} from the home, relative from {@code base}. */
  private static Path placeOf(Path base, String path) {
    if (path.equals("~") || path.startsWith("~/")) {
      String home = System.getenv("HOME") != null ? System.getenv("HOME")
          : System.getProperty("user.home"); // git reads $HOME
      return home == null ? null : place(Path.of(home), path.equals("~") ? "." : path.substring(2));
    }
    return place(base, path);
  }

  private static void add(Set<Path> out, Path place) {
    if (place != null) {
      out.add(place);
    }
  }

  /**
   * Where each symbolic link inside a git directory leads: its top-level entries, {@code info},
   * {@code refs} whole, and {@code objects} to the depth of its fan-out, packs and {@code info}
   * (never a loose object's file: git writes those, it does not link them).
   */
  private static void links(Path git, Set<Path> out) {
    walk(git, 1, out);
    walk(git.resolve("info"), 1, out);
    walk(git.resolve("refs"), Integer.MAX_VALUE, out);
    walk(git.resolve("objects"), 1, out);
    walk(git.resolve("objects/pack"), 1, out);
    walk(git.resolve("objects/info"), 1, out);
  }

  private static void walk(Path dir, int depth, Set<Path> out) {
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (Stream<Path> entries = Files.walk(dir, depth)) {
      entries.filter(Files::isSymbolicLink).forEach(link -> out.add(leadsTo(link)));
    } catch (IOException | RuntimeException e) {
      // unreadable: git could not read it either
    }
  }

  /** Where a symbolic link leads, resolved as far as it exists (a dangling one too). */
  private static Path leadsTo(Path link) {
    try {
      Path target = link.getParent().resolve(Files.readSymbolicLink(link)).normalize();
      return real(target);
    } catch (IOException | InvalidPathException | SecurityException e) {
      return real(link);
    }
  }

  /**
   * The paths a config names: {@code core.hooksPath} and {@code core.worktree} (relative to the
   * repository), an {@code include.path} or {@code includeIf.*.path} (relative to the config
   * itself, and followed), and any value that starts with an absolute path.
   */
  private static void configured(Path config, Path repo, Set<Path> out) {
    String text = read(config);
    if (text == null) {
      return;
    }
    String section = "";
    for (String raw : text.split("\n")) {
      String line = raw.strip();
      if (line.startsWith("[")) {
        int end = line.indexOf(']');
        String header = end < 0 ? line.substring(1) : line.substring(1, end);
        section = header.split("[ .\"]", 2)[0].toLowerCase(java.util.Locale.ROOT);
        continue;
      }
      int eq = line.indexOf('=');
      if (eq < 0 || line.startsWith("#") || line.startsWith(";")) {
        continue;
      }
      String key = line.substring(0, eq).strip().toLowerCase(java.util.Locale.ROOT);
      String value = unquote(line.substring(eq + 1).strip());
      if (value.isEmpty()) {
        continue;
      }
      Path base = null;
      if (section.equals("core") && (key.equals("hookspath") || key.equals("worktree"))) {
        base = repo;
      } else if ((section.equals("include") || section.equals("includeif"))
          && key.equals("path")) {
        base = config.getParent();
      }
      String first = value.split("\\s+", 2)[0];
      if (base != null && !value.startsWith("~")) {
        Path named = place(base, value);
        if (named != null && out.add(named) && base.equals(config.getParent())) {
          configured(named, repo, out); // git reads an included file as config
        }
      } else if (first.startsWith("/")) {
        Path named = place(Path.of("/"), first);
        if (named != null) {
          out.add(named);
        }
      }
    }
  }

  /** The object stores an {@code info/alternates} names, followed as git follows them. */
  private static void alternates(Path objects, Set<Path> out, int depth) {
    if (depth >= MAX_ALTERNATES) {
      return;
    }
    String text = read(objects.resolve("info/alternates"));
    if (text == null) {
      return;
    }
    for (String line : text.split("\n")) {
      String named = line.strip();
      if (named.isEmpty() || named.startsWith("#")) {
        continue;
      }
      if (named.length() >= 2 && named.startsWith("\"") && named.endsWith("\"")) {
        // git reads a C-quoted line
        named = named.substring(1, named.length() - 1).replace("\\\"", "\"")
            .replace("\\\\", "\\");
      }
      Path store = place(objects, named);
      if (store != null && out.add(store)) {
        walk(store, 1, out);
        walk(store.resolve("pack"), 1, out);
        walk(store.resolve("info"), 1, out);
        alternates(store, out, depth + 1);
      }
    }
  }

  /** The path {@code file} names after {@code prefix}, relative to {@code base}; or null. */
  private static Path named(Path file, Path base, String prefix) {
    String text = read(file);
    if (text == null || !text.startsWith(prefix)) {
      return null;
    }
    String named = text.substring(prefix.length()).strip();
    return named.isEmpty() || named.indexOf('\n') >= 0 ? null : place(base, named);
  }

  private static Path place(Path base, String named) {
    try {
      return real(base.resolve(named).normalize());
    } catch (InvalidPathException e) {
      return null;
    }
  }

  private static String unquote(String value) {
    String v = value;
    int comment = v.startsWith("\"") ? -1 : Math.max(v.indexOf(" #"), v.indexOf(" ;"));
    if (comment > 0) {
      v = v.substring(0, comment).strip();
    }
    return v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"")
        ? v.substring(1, v.length() - 1) : v;
  }

  /** A file's text, read through links, at most {@link #MAX_BYTES}; null when there is none. */
  private static String read(Path file) {
    try {
      if (!Files.isRegularFile(file)) {
        return null;
      }
      try (InputStream in = Files.newInputStream(file)) {
        return new String(in.readNBytes(MAX_BYTES), StandardCharsets.UTF_8);
      }
    } catch (IOException | SecurityException e) {
      return null;
    }
  }

  private static Path real(Path p) {
    return MountGuard.resolved(p.toAbsolutePath());
  }
}
