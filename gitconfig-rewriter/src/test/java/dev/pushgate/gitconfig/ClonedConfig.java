package dev.pushgate.gitconfig;

/** What {@code git clone https://github.com/acme/widget.git} writes in a repository's config. */
final class ClonedConfig {
  /** The origin remote and {@code main}'s tracking of it, as a clone writes them. */
  static final String ORIGIN_AND_MAIN = """
      [remote "origin"]
      \turl = https://github.com/acme/widget.git
      \tfetch = +refs/heads/*:refs/remotes/origin/*
      [branch "main"]
      \tremote = origin
      \tmerge = refs/heads/main
      """;

  private ClonedConfig() {}
}
