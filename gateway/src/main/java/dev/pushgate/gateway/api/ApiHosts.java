package dev.pushgate.gateway.api;

import java.util.Optional;

/**
 * The GitHub API host names a run's calls may name: {@code api.github.com} and
 * {@code uploads.github.com} always, and an optional GitHub Enterprise Server host, whose REST API
 * is under {@code /api/v3}, GraphQL at {@code /api/graphql} and uploads under {@code /api/uploads}.
 */
public record ApiHosts(Optional<String> enterprise) {
  public static final String API = "api.github.com";
  public static final String UPLOADS = "uploads.github.com";
  /** github.com's hosts alone. */
  public static final ApiHosts GITHUB_COM = new ApiHosts(Optional.empty());

  public ApiHosts {
    enterprise = enterprise == null ? Optional.empty()
        : enterprise.map(ApiHosts::normalised);
  }

  /** github.com's hosts and the GitHub Enterprise Server at {@code host}. */
  public static ApiHosts withEnterprise(String host) {
    if (host == null || host.isBlank()) {
      throw new IllegalArgumentException("an enterprise host name is missing");
    }
    return new ApiHosts(Optional.of(host));
  }

  /** Which API a call reaches, once its host is normalised; {@code NONE} for any other host. */
  enum Api {
    REST, UPLOADS, ENTERPRISE, NONE
  }

  Api apiOf(String host) {
    String h = normalised(host);
    if (h.equals(API)) {
      return Api.REST;
    }
    if (h.equals(UPLOADS)) {
      return Api.UPLOADS;
    }
    return enterprise.isPresent() && h.equals(enterprise.get()) ? Api.ENTERPRISE : Api.NONE;
  }

  /** Lower case, without a trailing dot or the default port :443 (what a TLS client may send). */
  static String normalised(String host) {
    return dev.pushgate.types.HostNames.normalised(host);
  }
}
