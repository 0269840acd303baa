package dev.pushgate.broker;

import java.util.Objects;

/** Who GitHub says the App is ({@code GET /app}): proof that the App ID and key belong together. */
public record AppIdentity(long id, String slug, String name) {
  public AppIdentity {
    if (id <= 0) {
      throw new IllegalArgumentException("app id must be positive: " + id);
    }
    Objects.requireNonNull(slug, "slug");
    Objects.requireNonNull(name, "name");
  }
}
