package dev.pushgate.gitconfig;

import dev.pushgate.types.UntrustedText;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The git host whose pushes go through the gateway: {@code github.com}, a GitHub Enterprise
 * Server, or any http(s) base URL that serves repositories as {@code <base>/<owner>/<repo>.git}.
 * The gateway serves it under {@code /git/<segment>/}, where the segment is the host, with its
 * port when that is not the scheme's default.
 *
 * @param scheme {@code https} or {@code http}
 * @param host a DNS name or an IPv4 address, lower-cased, without a trailing dot
 * @param port the port, or -1 for the scheme's default
 * @param path where repositories start on the host, e.g. {@code /forge}; empty for the root
 */
public record GitHost(String scheme, String host, int port, String path) {
  private static final Pattern DNS_NAME = Pattern.compile(
      "[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*");
  private static final Pattern IPV4 = Pattern.compile("[0-9]{1,3}(?:\\.[0-9]{1,3}){3}");
  private static final Pattern BASE = Pattern.compile(
      "(?i)(https?)://([^/:@?#\\[\\]]+)(?::([0-9]{1,5}))?(/[A-Za-z0-9._~/-]*)?");
  private static final List<String> SSH_SCHEMES = List.of("ssh", "git+ssh", "ssh+git");

  /** {@code https://github.com}; after the patterns its constructor uses. */
  public static final GitHost GITHUB = new GitHost("https", "github.com", -1, "");

  public GitHost {
    if (!"https".equals(scheme) && !"http".equals(scheme)) {
      throw new IllegalArgumentException("git host scheme must be http or https: "
          + UntrustedText.printable(scheme));
    }
    if (host == null || host.length() > 253
        || !DNS_NAME.matcher(host).matches() && !IPV4.matcher(host).matches()) {
      throw new IllegalArgumentException(
          "git host must be a DNS name such as github.com: " + UntrustedText.printable(host));
    }
    if (port == defaultPort(scheme)) {
      port = -1;
    }
    if (port != -1 && (port < 1 || port > 65535)) {
      throw new IllegalArgumentException("git host has an invalid port: " + port);
    }
    if (path == null || !path.isEmpty() && (!path.startsWith("/") || path.endsWith("/")
        || path.contains("//") || path.contains("/./") || path.contains("/../")
        || path.endsWith("/.") || path.endsWith("/.."))) {
      throw new IllegalArgumentException("git host path must be empty or /a/b without dot"
          + " segments or a trailing slash: " + UntrustedText.printable(path));
    }
  }

  /**
   * A host name ({@code github.com}, {@code ghes.example.com}) on https, or an http(s) base URL
   * ({@code https://ghes.example.com}, {@code http://127.0.0.1:7071/forge}). Case and a trailing
   * slash do not matter; user info, a query or a fragment are refused.
   */
  public static GitHost of(String nameOrUrl) {
    if (nameOrUrl == null || nameOrUrl.isEmpty()) {
      throw new IllegalArgumentException("git host is missing");
    }
    if (!nameOrUrl.contains("://")) {
      return new GitHost("https", stripDot(nameOrUrl.toLowerCase(Locale.ROOT)), -1, "");
    }
    Matcher m = BASE.matcher(nameOrUrl);
    if (!m.matches()) {
      // not echoed whole: a URL with user info may carry a credential
      throw new IllegalArgumentException("git host must be an http(s) URL without user info,"
          + " query or fragment, such as https://github.com");
    }
    String path = m.group(4) == null ? "" : m.group(4);
    while (path.endsWith("/")) {
      path = path.substring(0, path.length() - 1);
    }
    return new GitHost(m.group(1).toLowerCase(Locale.ROOT),
        stripDot(m.group(2).toLowerCase(Locale.ROOT)),
        m.group(3) == null ? -1 : Integer.parseInt(m.group(3)), path);
  }

  /** The gateway's path segment for this host: {@code github.com}, {@code 127.0.0.1:7071}. */
  public String segment() {
    return port == -1 ? host : host + ":" + port;
  }

  /**
   * How {@code gh} names a repository of this host in {@code GH_REPO}: {@code OWNER/REPO} on
   * github.com, {@code HOST/OWNER/REPO} (with the port when it is not the default) elsewhere, as
   * {@code gh}'s {@code [HOST/]OWNER/REPO} form has it.
   */
  public String ghRepo(String ownerAndName) {
    return equals(GITHUB) ? ownerAndName : segment() + "/" + ownerAndName;
  }

  /** Where git reaches repositories: {@code https://github.com}, without a trailing slash. */
  public String baseUrl() {
    return scheme + "://" + segment() + path;
  }

  /**
   * Every prefix under which git can be handed a repository of this host for a push, as {@code
   * pushInsteadOf} compares them (byte for byte): the base URL on http and https, with and without
   * the default port, the host with and without the trailing dot of a fully qualified name, and
   * the SSH forms ({@code ssh://}, {@code git+ssh://}, {@code ssh+git://} and scp-like, with no
   * user or {@code git@}, port 22 or none, the scp host in brackets or not). Each ends where the
   * {@code <owner>/<repo>} part starts.
   */
  public List<String> pushPrefixes() {
    List<String> hosts = IPV4.matcher(host).matches() ? List.of(host) : List.of(host, host + ".");
    List<String> out = new ArrayList<>();
    for (String h : hosts) {
      if (port == -1) {
        for (String s : List.of(scheme, scheme.equals("https") ? "http" : "https")) {
          out.add(s + "://" + h + path + "/");
          out.add(s + "://" + h + ":" + defaultPort(s) + path + "/");
        }
      } else {
        out.add(scheme + "://" + h + ":" + port + path + "/");
      }
    }
    for (String h : hosts) {
      for (String user : List.of("", "git@")) {
        for (String s : SSH_SCHEMES) {
          out.add(s + "://" + user + h + "/");
          out.add(s + "://" + user + h + ":22/");
        }
        out.add(user + h + ":");
        out.add(user + "[" + h + "]:");
      }
    }
    return List.copyOf(out);
  }

  /**
   * The {@code http.<url>} scopes that meet every http(s) spelling of the host that {@link
   * #pushPrefixes()} cannot list: git matches them with the host's case ignored, any user name,
   * the default port and a trailing dot folded, and {@code *.} for its subdomains (which GitHub
   * redirects to the host, and git follows the first redirect).
   */
  public List<String> httpScopes() {
    List<String> hosts = IPV4.matcher(host).matches() ? List.of(host) : List.of(host, "*." + host);
    List<String> out = new ArrayList<>();
    for (String h : hosts) {
      if (port == -1) {
        for (String s : List.of("https", "http")) {
          out.add(s + "://" + h + path + "/");
        }
      } else {
        out.add(scheme + "://" + h + ":" + port + path + "/");
      }
    }
    return List.copyOf(out);
  }

  /**
   * A proxy that cannot exist ({@code .invalid}, RFC 6761) whose name says what to do: git
   * answers a URL in a {@link #httpScopes()} scope with "Could not resolve proxy: NAME", and
   * never connects to the host.
   */
  public String refusingProxy() {
    String hint = ("use-" + host.replace('.', '-') + "-in-lowercase-as-in-the-run-s-git-config");
    if (hint.length() > 63) {
      hint = hint.substring(0, 63);
    }
    hint = hint.replaceAll("-+$", "");
    return "http://" + hint + ".pushgate-refused.invalid";
  }

  @Override
  public String toString() {
    return baseUrl();
  }

  static int defaultPort(String scheme) {
    return "https".equals(scheme) ? 443 : 80;
  }

  private static String stripDot(String host) {
    return host.endsWith(".") ? host.substring(0, host.length() - 1) : host;
  }
}
