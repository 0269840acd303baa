package dev.pushgate.broker;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * How to reach GitHub as a GitHub App.
 *
 * @param appId the App ID ({@code 123456}) or client ID ({@code Iv23li...}); it becomes the JWT's
 *     {@code iss}
 * @param privateKeyFile the App's private key, PEM (PKCS#1 as GitHub ships it, or PKCS#8)
 * @param apiBaseUrl {@code https://api.github.com}, {@code https://HOST/api/v3} for GitHub
 *     Enterprise Server, or a loopback {@code http://127.0.0.1:PORT/...} base (the local forge);
 *     plain http is refused for any other host because tokens travel on it
 * @param gitHost where git talks to, {@code https://github.com} or the GHES host
 * @param connectTimeout TCP/TLS connect timeout of one request
 * @param readTimeout socket read (and write) timeout of one request
 * @param callTimeout the whole of one request, body included
 * @param retryDeadline the bound on one broker call, retries and rate-limit waits included
 * @param maxAttempts attempts of one request on 5xx and network errors (1 = no retry)
 */
public record GitHubAppConfig(
    String appId,
    Path privateKeyFile,
    URI apiBaseUrl,
    URI gitHost,
    Duration connectTimeout,
    Duration readTimeout,
    Duration callTimeout,
    Duration retryDeadline,
    int maxAttempts) {

  public static final URI GITHUB_API = URI.create("https://api.github.com");
  public static final URI GITHUB = URI.create("https://github.com");
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
  public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(20);
  public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(30);
  public static final Duration DEFAULT_RETRY_DEADLINE = Duration.ofSeconds(60);
  public static final int DEFAULT_MAX_ATTEMPTS = 4;

  private static final Pattern APP_ID = Pattern.compile("[A-Za-z0-9._-]{1,100}");
  private static final Set<String> LOOPBACK = Set.of("127.0.0.1", "localhost", "[::1]", "::1");
  private static final Duration LONGEST = Duration.ofHours(1);

  public GitHubAppConfig {
    if (appId == null || !APP_ID.matcher(appId).matches()) {
      throw new IllegalArgumentException(
          "not a GitHub App ID or client ID: " + (appId == null ? "(none)" : quoted(appId)));
    }
    Objects.requireNonNull(privateKeyFile, "privateKeyFile");
    apiBaseUrl = base(apiBaseUrl, "apiBaseUrl");
    gitHost = base(gitHost, "gitHost");
    positive(connectTimeout, "connectTimeout");
    positive(readTimeout, "readTimeout");
    positive(callTimeout, "callTimeout");
    positive(retryDeadline, "retryDeadline");
    if (maxAttempts < 1 || maxAttempts > 10) {
      throw new IllegalArgumentException("maxAttempts must be 1 to 10: " + maxAttempts);
    }
  }

  /** github.com with default timeouts and retries. */
  public static GitHubAppConfig of(String appId, Path privateKeyFile) {
    return new GitHubAppConfig(
        appId,
        privateKeyFile,
        GITHUB_API,
        GITHUB,
        DEFAULT_CONNECT_TIMEOUT,
        DEFAULT_READ_TIMEOUT,
        DEFAULT_CALL_TIMEOUT,
        DEFAULT_RETRY_DEADLINE,
        DEFAULT_MAX_ATTEMPTS);
  }

  public GitHubAppConfig withApiBaseUrl(URI apiBaseUrl) {
    return new GitHubAppConfig(appId, privateKeyFile, apiBaseUrl, gitHost, connectTimeout,
        readTimeout, callTimeout, retryDeadline, maxAttempts);
  }

  public GitHubAppConfig withGitHost(URI gitHost) {
    return new GitHubAppConfig(appId, privateKeyFile, apiBaseUrl, gitHost, connectTimeout,
        readTimeout, callTimeout, retryDeadline, maxAttempts);
  }

  public GitHubAppConfig withTimeouts(Duration connect, Duration read, Duration call) {
    return new GitHubAppConfig(appId, privateKeyFile, apiBaseUrl, gitHost, connect, read, call,
        retryDeadline, maxAttempts);
  }

  public GitHubAppConfig withRetries(Duration deadline, int attempts) {
    return new GitHubAppConfig(appId, privateKeyFile, apiBaseUrl, gitHost, connectTimeout,
        readTimeout, callTimeout, deadline, attempts);
  }

  private static URI base(URI uri, String what) {
    Objects.requireNonNull(uri, what);
    if (uri.getRawUserInfo() != null) {
      // not echoed: the user info is a credential
      throw new IllegalArgumentException(what + " must not carry credentials");
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    String host = uri.getHost();
    if (!uri.isAbsolute() || uri.isOpaque() || host == null
        || !(scheme.equals("https") || scheme.equals("http"))) {
      throw new IllegalArgumentException(what + " must be an http(s) URL: " + quoted(uri.toString()));
    }
    if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
      throw new IllegalArgumentException(
          what + " must not have a query or a fragment: " + quoted(uri.toString()));
    }
    if (scheme.equals("http") && !LOOPBACK.contains(host.toLowerCase(Locale.ROOT))) {
      throw new IllegalArgumentException(
          what + " must use https unless it is a loopback address (tokens travel on it): "
              + quoted(uri.toString()));
    }
    String path = uri.getRawPath() == null ? "" : uri.getRawPath();
    while (path.endsWith("/")) {
      path = path.substring(0, path.length() - 1);
    }
    return URI.create(scheme + "://" + uri.getRawAuthority() + path);
  }

  private static void positive(Duration d, String what) {
    Objects.requireNonNull(d, what);
    if (d.isNegative() || d.isZero() || d.compareTo(LONGEST) > 0) {
      throw new IllegalArgumentException(what + " must be more than 0 and at most 1 hour: " + d);
    }
  }

  private static String quoted(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      b.append(c < 0x20 || c == 0x7f ? String.format("\\x%02x", (int) c) : String.valueOf(c));
      if (b.length() > 120) {
        b.append("…");
        break;
      }
    }
    return b.append('"').toString();
  }
}
