package dev.pushgate.policy;

import java.util.List;

/**
 * The names of files that hold secrets: one list, read by both layers that keep them out. The
 * sandbox denies writing them inside a run's writable mounts (the default {@code denyWriteGlobs},
 * matched by the name-deny layer), and the gateway refuses a push that brings one (the default
 * content rule "no secret files"). Both match it as a {@link ContentGlob} list: a name is a
 * secret file when one of the globs matches it, ignoring case, and none of the {@code !}
 * exceptions. docs/policy.md ("Secret files") gives each entry's source and why the exceptions
 * are safe: an excepted file is still scanned by the "no secrets" rule.
 */
public final class SecretFiles {
  /** The list, as written in a rules document. */
  public static final List<String> GLOBS = List.of(
      // dotenv files, but not the committed templates that show which variables exist
      ".env", ".env.*", "!.env.example", "!.env.sample", "!.env.template", "!.env.dist",
      // private keys and the containers that bundle them
      "*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore", "*.ppk",
      // ssh-keygen's private keys; their public halves are not secrets
      "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", "!id_*.pub",
      // credential stores of git, curl, PostgreSQL, PyPI, Docker, Apache, Google's client libraries
      ".git-credentials", ".netrc", "_netrc", ".pgpass", ".pypirc", ".dockercfg", ".htpasswd",
      "credentials.json");

  /** {@link #GLOBS} as file-name globs. */
  public static final List<ContentGlob> NAME_GLOBS =
      GLOBS.stream().map(ContentGlob::name).toList();

  private SecretFiles() {}

  /** Whether a file of this name (the last path segment) is a secret file. */
  public static boolean matches(String name) {
    return ContentGlob.listMatches(NAME_GLOBS, name);
  }
}
