package dev.pushgate.policy;

import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Whether a command line's network target is one a boundary judges: a push to the git host, a gh
 * call to GitHub, an HTTP request to GitHub's API hosts. Every answer leans to "no": a target it
 * cannot read, one known only at run time, an option that sends the request somewhere else (a
 * proxy, a resolve override, URLs read from a file) or any word it does not understand keeps the
 * command where it was, judged by the command policy as before.
 */
final class GitHubTargets {
  /** Git hosts whose pushes the run's git config sends to the gateway (ssh.github.com: SSH on 443). */
  private static final Set<String> GIT_HOSTS = Set.of("github.com", "ssh.github.com");
  private static final Set<String> API_HOSTS = Set.of("api.github.com", "uploads.github.com");

  private static final Set<String> CURL_VALUED = Set.of("--header", "--user-agent", "--user",
      "--data", "--data-raw", "--data-binary", "--data-ascii", "--data-urlencode", "--json",
      "--form", "--form-string", "--request", "--output", "--dump-header", "--write-out",
      "--max-time", "--connect-timeout", "--retry", "--retry-delay", "--retry-max-time",
      "--oauth2-bearer", "--cookie", "--cookie-jar", "--referer", "--cacert", "--capath",
      "--upload-file", "--url-query", "--limit-rate", "--range", "--trace", "--trace-ascii",
      "--stderr", "--output-dir", "--max-filesize", "--max-redirs", "--speed-limit",
      "--speed-time", "--time-cond", "--cert", "--key", "--pass", "--cert-type", "--key-type",
      "--variable", "--etag-save", "--etag-compare");
  /** Options after which curl talks to another place than its URL says, or reads URLs elsewhere. */
  private static final Set<String> CURL_ELSEWHERE = Set.of("--config", "--resolve", "--connect-to",
      "--proxy", "--preproxy", "--socks4", "--socks4a", "--socks5", "--socks5-hostname",
      "--unix-socket", "--abstract-unix-socket", "--interface", "--dns-servers", "--doh-url");
  private static final String CURL_SHORT_VALUED = "oDcXdFTAbCeEHKmPQrtuUwxyYz";

  private static final Set<String> WGET_VALUED = Set.of("--header", "--post-data", "--post-file",
      "--body-data", "--body-file", "--method", "--output-document", "--output-file",
      "--user-agent", "--user", "--password", "--http-user", "--http-password", "--timeout",
      "--tries", "--wait", "--directory-prefix", "--ca-certificate", "--certificate",
      "--private-key", "--referer", "--save-headers", "--load-cookies", "--save-cookies");
  private static final Set<String> WGET_ELSEWHERE = Set.of("--input-file", "--execute", "--base",
      "--bind-address", "--config", "--use-askpass");
  private static final String WGET_SHORT_VALUED = "oaeiBtOTwQPUDRAIXl";
  private static final String WGET_SHORT_ELSEWHERE = "eiB";

  /**
   * How a URL-fetching command's options read: which take a value, and which send it elsewhere
   * than its URLs say (then nothing is deferred to the boundary).
   */
  private record UrlClient(Set<String> valued, Set<String> elsewhere, String shortValued,
      String shortElsewhere, boolean anyProxyOptionElsewhere, boolean urlOption) {}

  private static final UrlClient CURL =
      new UrlClient(CURL_VALUED, CURL_ELSEWHERE, CURL_SHORT_VALUED, "Kx", false, true);
  private static final UrlClient WGET =
      new UrlClient(WGET_VALUED, WGET_ELSEWHERE, WGET_SHORT_VALUED, WGET_SHORT_ELSEWHERE, true, false);

  private static final Set<String> HTTPIE_VALUED = Set.of("--auth", "-a", "--auth-type", "-A",
      "--output", "-o", "--session", "--session-read-only", "--verify", "--cert", "--cert-key",
      "--cert-key-pass", "--timeout", "--max-redirects", "--pretty", "--style", "-s", "--print",
      "-p", "--format-options", "--response-charset", "--response-mime", "--ssl", "--ciphers",
      "--max-headers", "--unsorted");
  private static final Set<String> HTTPIE_ELSEWHERE = Set.of("--proxy", "--default-scheme",
      "--unix-socket", "--interface", "--resolve");

  private GitHubTargets() {}

  /**
   * Whether a {@code git push} with these arguments goes to the git host: to a remote named on
   * the line or the default one (the run's git config sends the git host's URLs to the gateway,
   * and a remote holding another host's URL is the egress allowlist's to bound), or to a URL of
   * github.com. A URL of another host, a local path, a destination only known at run time, or a
   * push that names the program to run at the other end ({@code --receive-pack}) is not.
   */
  static boolean pushGoesToGitHost(List<String> args) {
    String positional = null;
    String repoOption = null;
    for (int k = 0; k < args.size(); k++) {
      String a = args.get(k);
      if (a.equals("--")) {
        if (positional == null && k + 1 < args.size()) {
          positional = args.get(k + 1);
        }
        break;
      }
      if (a.equals("--receive-pack") || a.equals("--exec") || a.startsWith("--receive-pack=")
          || a.startsWith("--exec=")) {
        return false;
      }
      if (a.equals("--repo")) {
        repoOption = k + 1 < args.size() ? args.get(++k) : null;
      } else if (a.startsWith("--repo=")) {
        repoOption = a.substring("--repo=".length());
      } else if (a.equals("--push-option")) {
        k++;
      } else if (a.startsWith("--")) {
        // a flag, or a long option with its value attached
      } else if (a.startsWith("-") && a.length() > 1) {
        int o = a.indexOf('o');
        if (o == a.length() - 1) {
          k++;
        }
      } else if (positional == null) {
        positional = a;
      }
    }
    String destination = positional != null ? positional : repoOption;
    return destination == null || gitDestinationIsGitHost(destination);
  }

  private static boolean gitDestinationIsGitHost(String destination) {
    if (dynamic(destination) || destination.isEmpty()) {
      return false;
    }
    int scheme = destination.indexOf("://");
    if (scheme >= 0) {
      return GIT_HOSTS.contains(host(destination.substring(scheme + 3), false));
    }
    int colon = destination.indexOf(':');
    int slash = destination.indexOf('/');
    if (colon > 0 && (slash < 0 || colon < slash)) {
      // scp-like: [user@]host:path
      return GIT_HOSTS.contains(host(destination.substring(0, colon) + "/", false));
    }
    // a path (local), or a remote's name
    return slash < 0 && !destination.startsWith(".") && !destination.startsWith("~");
  }

  /**
   * Whether a gh command line talks to github.com: no {@code --hostname} or {@code -R
   * HOST/OWNER/REPO} naming another host. ({@code GH_HOST} is not seen; gh would send the run's
   * placeholder token there, which no host but GitHub's boundary turns into a credential.)
   */
  static boolean ghTalksToGitHub(List<String> w, int i) {
    for (int k = i + 1; k < w.size(); k++) {
      GhValueFlag.Value hostFlag = GhValueFlag.HOSTNAME.at(w, k);
      GhValueFlag.Value repoFlag = hostFlag == null ? GhValueFlag.REPO.at(w, k) : null;
      if (hostFlag != null) {
        k = hostFlag.last();
        if (!host(hostFlag.text() + "/", false).equals("github.com")) {
          return false;
        }
      } else if (repoFlag != null) {
        k = repoFlag.last();
        String repo = repoFlag.text();
        if (dynamic(repo)) {
          return false;
        }
        int scheme = repo.indexOf("://");
        String rest = scheme >= 0 ? repo.substring(scheme + 3) : repo;
        if ((scheme >= 0 || rest.chars().filter(c -> c == '/').count() >= 2)
            && !host(rest, false).equals("github.com")) {
          return false;
        }
      }
    }
    return true;
  }

  /** Whether a {@code gh api} endpoint is GitHub's: a path, {@code graphql}, or an API URL. */
  static boolean ghEndpointIsGitHub(String endpoint) {
    int scheme = endpoint.indexOf("://");
    return scheme < 0 ? !dynamic(endpoint) : isApiUrl(endpoint);
  }

  /** Whether every URL a curl command line reaches is on GitHub's API hosts, and there is one. */
  static boolean curlReachesOnlyApi(List<String> w, int i) {
    return reachesOnlyApi(CURL, w, i);
  }

  /** Whether every URL a wget command line fetches is on GitHub's API hosts, and there is one. */
  static boolean wgetReachesOnlyApi(List<String> w, int i) {
    return reachesOnlyApi(WGET, w, i);
  }

  private static boolean reachesOnlyApi(UrlClient client, List<String> w, int i) {
    boolean any = false;
    for (int k = i + 1; k < w.size(); k++) {
      String a = w.get(k);
      if (a.startsWith("--")) {
        int eq = a.indexOf('=');
        String opt = eq < 0 ? a : a.substring(0, eq);
        if (client.elsewhere().contains(opt)
            || (client.anyProxyOptionElsewhere() && opt.contains("proxy"))) {
          return false;
        }
        if (client.urlOption() && opt.equals("--url")) {
          String v = eq >= 0 ? a.substring(eq + 1) : k + 1 < w.size() ? w.get(++k) : "";
          if (!isApiUrl(v)) {
            return false;
          }
          any = true;
        } else if (eq < 0 && client.valued().contains(opt)) {
          k++;
        }
        continue;
      }
      if (a.startsWith("-") && a.length() > 1) {
        for (int c = 1; c < a.length(); c++) {
          char ch = a.charAt(c);
          if (client.shortElsewhere().indexOf(ch) >= 0) {
            return false;
          }
          if (client.shortValued().indexOf(ch) >= 0) {
            if (c == a.length() - 1) {
              k++;
            }
            break;
          }
        }
        continue;
      }
      if (!isApiUrl(a)) {
        return false;
      }
      any = true;
    }
    return any;
  }

  /**
   * Whether an HTTPie-style command ({@code http}, {@code https}, {@code xh}, {@code xhs}) sends
   * its request to GitHub's API hosts: {@code [METHOD] URL [items…]}, the URL with {@code
   * https://}, or without a scheme for the commands that default to https.
   */
  static boolean httpieReachesApi(String name, List<String> w, int i) {
    boolean httpsByDefault = name.equals("https") || name.equals("xhs");
    String url = null;
    boolean methodSeen = false;
    for (int k = i + 1; k < w.size(); k++) {
      String a = w.get(k);
      if (a.startsWith("-") && a.length() > 1) {
        int eq = a.indexOf('=');
        String opt = eq < 0 ? a : a.substring(0, eq);
        if (HTTPIE_ELSEWHERE.contains(opt)) {
          return false;
        }
        if (eq < 0 && HTTPIE_VALUED.contains(opt)) {
          k++;
        }
        continue;
      }
      if (url != null) {
        continue;
      }
      if (!methodSeen && a.matches("[A-Z]+")) {
        methodSeen = true;
        continue;
      }
      url = a;
    }
    if (url == null) {
      return false;
    }
    return isApiUrl(url) || (httpsByDefault && !url.contains("://") && isApiUrl("https://" + url));
  }

  /** Whether {@code url} is {@code https://} one of GitHub's API hosts (port 443 at most). */
  static boolean isApiUrl(String url) {
    if (dynamic(url) || !url.regionMatches(true, 0, "https://", 0, 8)) {
      return false;
    }
    return API_HOSTS.contains(host(url.substring(8), true));
  }

  /**
   * The host of the authority that starts {@code rest} (up to {@code /}, {@code ?} or {@code #}),
   * lower-case, without user, trailing dot, or a port (only 443 when {@code httpsPortOnly}).
   * Empty when it cannot be read.
   */
  private static String host(String rest, boolean httpsPortOnly) {
    int end = rest.length();
    for (char c : new char[] {'/', '?', '#', '\\'}) {
      int at = rest.indexOf(c);
      if (at >= 0 && at < end) {
        end = at;
      }
    }
    String authority = rest.substring(0, end);
    int at = authority.lastIndexOf('@');
    String host = authority.substring(at + 1);
    int colon = host.indexOf(':');
    if (colon >= 0) {
      String port = host.substring(colon + 1);
      if (httpsPortOnly ? !(port.isEmpty() || port.equals("443")) : !port.matches("[0-9]*")) {
        return "";
      }
      host = host.substring(0, colon);
    }
    host = host.toLowerCase(Locale.ROOT);
    return host.endsWith(".") ? host.substring(0, host.length() - 1) : host;
  }

  private static boolean dynamic(String s) {
    return s.indexOf(ShellParser.DYNAMIC) >= 0 || s.indexOf(ShellParser.DYNAMIC_NONEMPTY) >= 0;
  }
}
