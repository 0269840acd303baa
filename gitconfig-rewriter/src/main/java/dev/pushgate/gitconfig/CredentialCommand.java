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

  /**
   * Asks the appliance at {@code credentialUrl} for the run's current read token, so that a run
   * longer than a token's hour keeps fetching; {@code $GH_TOKEN}, a snapshot taken at launch, is
   * the fallback when curl is missing or the appliance does not answer.
   *
   * <p>The run's credential never appears in the snippet: git runs it as {@code sh -c <snippet>},
   * and a process's arguments are readable by every local user in {@code /proc/PID/cmdline}
   * (the host sees the sandbox's processes too). The helper reads the gateway header that {@link
   * GitConfigFile} wrote into the run's git config ({@code GIT_CONFIG_GLOBAL}, the same file git
   * is reading) with {@code git config}, and pipes it to curl, which reads headers from stdin
   * ({@code -H @-}); only the names of the key and the endpoint are arguments.
   */
  public static CredentialCommand askingGateway(String gatewayBaseUrl, String credentialUrl) {
    String headerKey = GitConfigFile.gatewayHeaderKey(unquoted(gatewayBaseUrl, "gateway base URL"));
    String endpoint = Urls.base(unquoted(credentialUrl, "credential endpoint URL"),
        "credential endpoint URL");
    return new CredentialCommand("f() { test \"$1\" = get || exit 0;"
        + " git config --global --includes --get " + singleQuoted(headerKey) + " 2>/dev/null"
        + " | curl -fsS --max-time 10 -H @- " + singleQuoted(endpoint) + " 2>/dev/null"
        + " || { test -n \"$GH_TOKEN\" && printf 'username=x-access-token\\npassword=%s\\n'"
        + " \"$GH_TOKEN\"; }; }; f");
  }

  /** The snippet single-quotes URLs; a URL holding a quote would end the quoting. */
  private static String unquoted(String url, String what) {
    if (url != null && url.indexOf('\'') >= 0) {
      throw new IllegalArgumentException(what + " must not contain a quote: " + Printable.of(url));
    }
    return url;
  }

  private static String singleQuoted(String word) {
    return "'" + word + "'";
  }

  /** The value of {@code credential.<url>.helper}: a leading {@code !} makes git run a shell. */
  public String helperValue() {
    return "!" + shellSnippet;
  }
}
