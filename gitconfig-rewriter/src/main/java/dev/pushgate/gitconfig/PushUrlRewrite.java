package dev.pushgate.gitconfig;

import java.util.Objects;

/**
 * One {@code remote.<remote>.pushurl} value rewritten to the gateway. {@code from} is redacted:
 * user info other than {@code git} reads {@code ***}.
 */
public record PushUrlRewrite(String remote, String from, String to) {
  public PushUrlRewrite {
    Objects.requireNonNull(remote, "remote");
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(to, "to");
  }
}
