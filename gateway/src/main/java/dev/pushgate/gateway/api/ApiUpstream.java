package dev.pushgate.gateway.api;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Which host names the boundary answers for, and where it sends what it allows. {@code apiBase}
 * is the appliance's {@code --github-api-url}: {@code https://api.github.com}, a GitHub Enterprise
 * Server's {@code https://HOST/api/v3}, or a stand-in's URL.
 *
 * <ul>
 *   <li>{@code api.github.com}: {@code apiBase} + the path as sent;
 *   <li>{@code uploads.github.com}: {@code uploadsBase} + the path;
 *   <li>the GHES host (the host of {@code apiBase} when it is a name other than api.github.com):
 *       that host's origin + the path as sent ({@code /api/v3/...}, {@code /api/graphql}).
 * </ul>
 */
public record ApiUpstream(URI apiBase, URI uploadsBase, String enterpriseHost) {
  public static final String API_HOST = "api.github.com";
  public static final String UPLOADS_HOST = "uploads.github.com";

  public ApiUpstream {
    if (apiBase == null || apiBase.getHost() == null) {
      throw new IllegalArgumentException("the GitHub API base URL needs a host: " + apiBase);
    }
    apiBase = trimmed(apiBase);
    uploadsBase = trimmed(uploadsBase);
    enterpriseHost = enterpriseHost == null ? null : enterpriseHost.toLowerCase(Locale.ROOT);
  }

  /** Derived from {@code --github-api-url} alone. */
  public static ApiUpstream of(URI apiBase) {
    String host = apiBase.getHost() == null ? "" : apiBase.getHost().toLowerCase(Locale.ROOT);
    if (host.equals(API_HOST)) {
      return new ApiUpstream(apiBase, URI.create("https://" + UPLOADS_HOST), null);
    }
    URI origin = origin(apiBase);
    // GHES serves uploads under /api/uploads; a stand-in answers them at its API base.
    boolean name = !host.isEmpty() && !host.equals("localhost") && !isAddressLiteral(host);
    if (name) {
      return new ApiUpstream(apiBase, URI.create(origin + "/api/uploads"), host);
    }
    return new ApiUpstream(apiBase, apiBase, null);
  }

  /** The names the run's proxy sends to the boundary. */
  public List<String> hostNames() {
    List<String> names = new ArrayList<>(List.of(API_HOST, UPLOADS_HOST));
    if (enterpriseHost != null && !names.contains(enterpriseHost)) {
      names.add(enterpriseHost);
    }
    return names;
  }

  /** Whether the boundary answers for {@code host}. */
  public boolean intercepts(String host) {
    return host != null && hostNames().contains(ApiHosts.normalised(host));
  }

  /** Where a call to {@code host} for {@code rawPath}?{@code rawQuery} goes, or null. */
  public URI target(String host, String rawPath, String rawQuery) {
    String h = ApiHosts.normalised(host);
    String base;
    if (h.equals(API_HOST)) {
      base = apiBase.toString();
    } else if (h.equals(UPLOADS_HOST)) {
      base = uploadsBase.toString();
    } else if (h.equals(enterpriseHost)) {
      base = origin(apiBase).toString();
    } else {
      return null;
    }
    String path = rawPath == null || rawPath.isEmpty() ? "/" : rawPath;
    String query = rawQuery == null || rawQuery.isEmpty() ? "" : "?" + rawQuery;
    return URI.create(base + path + query);
  }

  private static URI trimmed(URI u) {
    if (u == null) {
      return null;
    }
    String s = u.toString();
    while (s.endsWith("/")) {
      s = s.substring(0, s.length() - 1);
    }
    return URI.create(s);
  }

  private static URI origin(URI u) {
    return URI.create(u.getScheme() + "://" + u.getRawAuthority());
  }

  private static boolean isAddressLiteral(String host) {
    return host.startsWith("[") || host.contains(":") || host.matches("[0-9.]+");
  }
}
