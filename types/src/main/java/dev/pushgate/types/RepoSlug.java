package dev.pushgate.types;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * A repository named the way GitHub names it, {@code owner/name}. Validated so that it is safe as
 * a path: no {@code ..}, no slash or backslash inside a part, no empty part, no control character.
 */
public record RepoSlug(String owner, String name) {
  private static final Pattern OWNER = Pattern.compile("[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})");
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,100}");

  public RepoSlug {
    if (owner == null || !OWNER.matcher(owner).matches()) {
      throw new IllegalArgumentException("not a valid repository owner: " + UntrustedText.printable(owner));
    }
    if (name == null || !NAME.matcher(name).matches() || name.equals(".") || name.equals("..")
        || name.endsWith(".git") && name.length() == 4) {
      throw new IllegalArgumentException("not a valid repository name: " + UntrustedText.printable(name));
    }
  }

  /** Parses {@code owner/name}, accepting and dropping a trailing {@code .git}. */
  public static RepoSlug parse(String slug) {
    if (slug == null) {
      throw new IllegalArgumentException("a repository is missing (expected owner/name)");
    }
    String s = slug.endsWith(".git") ? slug.substring(0, slug.length() - 4) : slug;
    int slash = s.indexOf('/');
    if (slash < 0 || s.indexOf('/', slash + 1) >= 0) {
      throw new IllegalArgumentException(
          "not a repository (expected owner/name): " + UntrustedText.printable(slug));
    }
    return new RepoSlug(s.substring(0, slash), s.substring(slash + 1));
  }

  /** GitHub compares repository names without regard to case. */
  public String key() {
    return (owner + "/" + name).toLowerCase(Locale.ROOT);
  }

  public boolean sameAs(RepoSlug other) {
    return key().equals(other.key());
  }

  @Override
  public String toString() {
    return owner + "/" + name;
  }
}
