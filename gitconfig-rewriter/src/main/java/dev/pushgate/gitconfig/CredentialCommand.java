package dev.pushgate.gitconfig;

import java.util.regex.Pattern;

/**
 * The shell snippet git runs as the credential helper for the fetch host (written as
 * {@code helper = !<snippet>}). git calls it with {@code get}, {@code store} or {@code erase} and
 * reads {@code username=} and {@code password=} lines from it.
 */
public record CredentialCommand(String shellSnippet) {
  /** The variable that {@link #fromEnvironment()} reads, as the {@code gh} CLI does. */
  public static final String DEFAULT_TOKEN_VARIABLE = "GH_TOKEN";

  private static final Pattern VARIABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  public CredentialCommand {
    if (shellSnippet == null || shellSnippet.isBlank()) {
      throw new IllegalArgumentException("credential helper snippet is empty");
    }
    // fail here rather than when the file is written
    ConfigSyntax.value(shellSnippet);
  }

  /** Any snippet, for example one that asks the gateway with curl for the current token. */
  public static CredentialCommand shell(String snippet) {
    return new CredentialCommand(snippet);
  }

  /** Answers with the read token from {@code $GH_TOKEN}. */
  public static CredentialCommand fromEnvironment() {
    return fromEnvironment(DEFAULT_TOKEN_VARIABLE);
  }

  /**
   * Answers {@code username=x-access-token} and {@code password=$<variable>} to {@code get}, and
   * nothing to {@code store} and {@code erase} or when the variable is unset or empty. The token
   * lives in the run's environment only; it is never written to disk.
   */
  public static CredentialCommand fromEnvironment(String variable) {
    if (variable == null || !VARIABLE.matcher(variable).matches()) {
      throw new IllegalArgumentException(
          "not an environment variable name: " + Printable.of(variable));
    }
    return new CredentialCommand("f() { test \"$1\" = get || exit 0; test -n \"$" + variable
        + "\" || exit 0; printf 'username=x-access-token\\npassword=%s\\n' \"$" + variable
        + "\"; }; f");
  }

  /** The value of {@code credential.<url>.helper}: a leading {@code !} makes git run a shell. */
  public String helperValue() {
    return "!" + shellSnippet;
  }
}
