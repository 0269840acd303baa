package dev.pushgate.broker;

import dev.pushgate.types.Secret;
import java.time.Instant;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * An installation access token bound to one repository. {@code repositoryId} is GitHub's immutable
 * id for that repository: pass it back on later calls so a rename or a re-created repository of the
 * same name cannot redirect the next token. {@code permissions} is what GitHub granted (already
 * checked to be no more than asked). The token's length and shape are deliberately not checked:
 * GitHub changes its token format.
 */
public record InstallationToken(
    Secret token, Instant expiresAt, long repositoryId, Map<String, String> permissions) {

  public InstallationToken {
    Objects.requireNonNull(token, "token");
    Objects.requireNonNull(expiresAt, "expiresAt");
    if (repositoryId <= 0) {
      throw new IllegalArgumentException("repository id must be positive: " + repositoryId);
    }
    Objects.requireNonNull(permissions, "permissions");
    permissions.forEach((name, level) -> {
      Objects.requireNonNull(name, "permission name");
      Objects.requireNonNull(level, "permission level");
    });
    permissions = Collections.unmodifiableMap(new TreeMap<>(permissions));
  }
}
