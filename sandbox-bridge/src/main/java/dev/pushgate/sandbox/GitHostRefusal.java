package dev.pushgate.sandbox;

import java.util.List;

/**
 * The GitHub hosts a run's proxy never connects to: those that serve git. A run's
 * fetches and pushes go to the gateway, which the run's git config sends every spelling of the
 * host it can match to; a spelling git's URL matching cannot read (the host percent-encoded,
 * {@code https://%67ithub.com/…}, or in full-width letters) is decoded by curl only when it
 * connects, and then reaches the run's proxy (git's curl honours {@code HTTPS_PROXY}) as the plain
 * host. Refusing the host here closes that door for every spelling at once: the proxy compares
 * the host as it connects, not as the URL spelt it.
 *
 * <p>The sandbox's GitHub allowlist ({@code egress-github.txt}) allows them through {@code
 * *.github.com}; this refusal comes after the allowlist and wins over it. The API hosts ({@code
 * api.github.com}, …) go to the run's API boundary before this is asked. Release downloads from {@code github.com/…/releases/download/…} are refused with them: {@code
 * gh release download} reaches the assets through the API.
 */
final class GitHostRefusal {
  /**
   * github.com itself; www., which GitHub redirects to it (git follows one redirect); ssh., which
   * serves git over SSH on port 443, a CONNECT away for an SSH client given a proxy command.
   */
  private static final List<String> GIT_HOSTS =
      List.of("github.com", "www.github.com", "ssh.github.com");

  private GitHostRefusal() {}

  /** The git host {@code host} (as a CONNECT or an absolute URL names it) spells, or null. */
  static String gitHost(String host) {
    String canonical;
    try {
      canonical = Hosts.canonical(dev.pushgate.types.HostNames.normalised(host));
    } catch (IllegalArgumentException e) {
      return null; // not a name the git host could be: the policy judges it
    }
    return GIT_HOSTS.contains(canonical) ? canonical : null;
  }

  /** What the refusal of {@code gitHost} says: what to use instead. */
  static String reason(String gitHost) {
    return "denied: " + gitHost + " serves git, and a run's git goes through the gateway:"
        + " spell the URL https://github.com/OWNER/REPO.git (lower case, no user name, no"
        + " %-escapes), which the run's git config sends to the gateway; for release assets use"
        + " gh release download";
  }
}
