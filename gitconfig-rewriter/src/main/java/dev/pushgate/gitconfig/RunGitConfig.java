package dev.pushgate.gitconfig;

import java.util.Objects;
import java.util.Optional;

/**
 * What goes into one run's git config (the file the run uses as {@code GIT_CONFIG_GLOBAL}).
 *
 * @param gatewayBaseUrl where the gateway listens, e.g. {@code http://127.0.0.1:7070}; it serves
 *     {@code <base>/git/<gitHost>/<owner>/<repo>.git}. Kept without a trailing slash.
 * @param gitHost the GitHub host whose push URLs are sent to the gateway, {@code github.com} by
 *     default; a GitHub Enterprise Server's own host otherwise
 * @param runCredential the run's own gateway bearer token, written to the 0600 file as an
 *     {@code Authorization} header scoped to the gateway; visible ASCII only. Never in
 *     {@link #toString()} or an exception message.
 * @param fetchBaseUrl in local-forge mode, the forge's base, e.g. {@code
 *     http://127.0.0.1:7070/forge/}, kept with a trailing slash: a clone made straight from it
 *     is sent to the gateway too, for fetches as for pushes
 *
 * <p>No credential for the git host: fetches and pushes both go to the gateway, which reads
 * upstream with the read token the appliance keeps. The run holds nothing GitHub accepts.
 */
public record RunGitConfig(
    String gatewayBaseUrl,
    GitHost gitHost,
    String runCredential,
    Optional<String> fetchBaseUrl) {

  public static final GitHost DEFAULT_GIT_HOST = GitHost.GITHUB;

  private static final int MAX_CREDENTIAL_LENGTH = 4096;

  public RunGitConfig {
    gatewayBaseUrl = Urls.base(gatewayBaseUrl, "gateway base URL");
    Objects.requireNonNull(gitHost, "gitHost");
    checkCredential(runCredential);
    Objects.requireNonNull(fetchBaseUrl, "fetchBaseUrl");
    fetchBaseUrl = fetchBaseUrl.map(u -> Urls.base(u, "fetch base URL") + "/");
    String gatewayGit = gatewayBaseUrl + "/git/";
    if (fetchBaseUrl.isPresent()
        && (gatewayGit.startsWith(fetchBaseUrl.get()) || fetchBaseUrl.get().startsWith(gatewayGit))) {
      // the rewrite would send the gateway's own URLs back to the gateway, or the forge's away
      throw new IllegalArgumentException("fetch base URL " + fetchBaseUrl.get()
          + " overlaps the gateway's " + gatewayGit + "; give the forge a path of its own");
    }
  }

  /** GitHub mode on {@code github.com}. */
  public static RunGitConfig of(String gatewayBaseUrl, String runCredential) {
    return new RunGitConfig(gatewayBaseUrl, DEFAULT_GIT_HOST, runCredential, Optional.empty());
  }

  /** Pushes to {@code host} (a name or base URL, see {@link GitHost#of}) go to the gateway. */
  public RunGitConfig withGitHost(String host) {
    return withGitHost(GitHost.of(host));
  }

  public RunGitConfig withGitHost(GitHost host) {
    return new RunGitConfig(gatewayBaseUrl, host, runCredential, fetchBaseUrl);
  }

  /** Local-forge mode: URLs under the forge's base {@code url} go to the gateway too. */
  public RunGitConfig withFetchBaseUrl(String url) {
    return new RunGitConfig(gatewayBaseUrl, gitHost, runCredential,
        Optional.of(Objects.requireNonNull(url, "fetch base URL")));
  }

  /** Where fetches and pushes of {@code gitHost} repositories go: {@code <gateway>/git/<seg>/}. */
  public String gatewayPushBase() {
    return Urls.gatewayHostBase(gatewayBaseUrl, gitHost.segment());
  }

  @Override
  public String toString() {
    return "RunGitConfig[gatewayBaseUrl=" + gatewayBaseUrl + ", gitHost=" + gitHost
        + ", runCredential=***, fetchBaseUrl=" + fetchBaseUrl.orElse("(none)") + "]";
  }

  private static void checkCredential(String credential) {
    if (credential == null || credential.isEmpty()) {
      throw new IllegalArgumentException("run credential is empty");
    }
    if (credential.length() > MAX_CREDENTIAL_LENGTH) {
      throw new IllegalArgumentException(
          "run credential is longer than " + MAX_CREDENTIAL_LENGTH + " characters");
    }
    for (int i = 0; i < credential.length(); i++) {
      char c = credential.charAt(i);
      // it becomes an HTTP header value: no space, no control character, nothing beyond ASCII
      if (c < 0x21 || c > 0x7e) {
        throw new IllegalArgumentException(String.format(
            "run credential must be visible ASCII; found %#04x at index %d", (int) c, i));
      }
    }
  }
}
