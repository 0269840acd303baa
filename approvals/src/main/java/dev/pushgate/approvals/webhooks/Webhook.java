package dev.pushgate.approvals.webhooks;

import dev.pushgate.types.Secret;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.Objects;

/**
 * One outgoing webhook: where approval events are posted, in which format, and the key that signs
 * them. Not a record: its URL is a secret too (a Slack incoming-webhook URL is all it takes to
 * post to the channel), so neither it nor the key may show through an accessor's {@code
 * toString}; {@link #toString()} names the host only.
 */
public final class Webhook {
  /** How a body is shaped. */
  public enum Format {
    /** pushgate's own JSON, docs/operations.md#webhooks. */
    GENERIC,
    /** A Slack incoming webhook's {@code {"text", "blocks"}}. */
    SLACK;

    public String id() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final Secret url;
  private final String host;
  private final String shown;
  private final Format format;
  private final Secret signingKey;

  private Webhook(Secret url, String host, String shown, Format format, Secret signingKey) {
    this.url = url;
    this.host = host;
    this.shown = shown;
    this.format = format;
    this.signingKey = signingKey;
  }

  /**
   * A checked webhook; {@code name} is how a refusal names it ("webhook 2"), as the URL itself may
   * not be shown. {@code signingKey} may be null: the body goes unsigned.
   */
  public static Webhook of(String name, String url, Format format, Secret signingKey) {
    Objects.requireNonNull(format, "format");
    URI uri;
    try {
      uri = new URI(Objects.requireNonNull(url, "url").strip());
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(name + ": the url is not a valid URL");
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("https") && !scheme.equals("http")) {
      throw new IllegalArgumentException(name + ": the url must start with https:// (or http://"
          + " to a loopback address)");
    }
    if (uri.getHost() == null || uri.getHost().isEmpty()) {
      throw new IllegalArgumentException(name + ": the url has no host");
    }
    if (uri.getRawUserInfo() != null) {
      throw new IllegalArgumentException(name + ": the url must not carry a user name or password;"
          + " sign the body with a secret instead");
    }
    if (uri.getRawFragment() != null) {
      throw new IllegalArgumentException(name + ": the url must not have a #fragment");
    }
    String host = uri.getHost();
    okhttp3.HttpUrl sent = okhttp3.HttpUrl.parse(uri.toString());
    if (sent == null) {
      throw new IllegalArgumentException(name + ": the url is not a valid URL");
    }
    // the host posted to is OkHttp's reading of the URL: both readings must be loopback
    if (scheme.equals("http") && !(isLoopback(host) && isLoopback(sent.host()))) {
      throw new IllegalArgumentException(name + ": plain http is allowed only to a loopback"
          + " address (" + host + " is not one); use https, so that the events and the url"
          + " itself are not readable on the network");
    }
    String shown = scheme + "://" + host + (uri.getPort() == -1 ? "" : ":" + uri.getPort())
        + "/***";
    return new Webhook(Secret.of(uri.toString()), host, shown, format, signingKey);
  }

  /** A loopback literal or {@code localhost}; a name is not resolved, so it is not loopback. */
  static boolean isLoopback(String host) {
    String h = host.startsWith("[") && host.endsWith("]")
        ? host.substring(1, host.length() - 1) : host;
    if (h.equalsIgnoreCase("localhost")) {
      return true;
    }
    if (!h.matches("[0-9.]+") && !h.contains(":")) {
      return false; // a name: not looked up here
    }
    try {
      return InetAddress.getByName(h).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  /** The URL, for the one place that posts to it. */
  Secret url() {
    return url;
  }

  public Format format() {
    return format;
  }

  /** The HMAC key, or null when the body goes unsigned. */
  Secret signingKey() {
    return signingKey;
  }

  public boolean signed() {
    return signingKey != null;
  }

  /** The host alone: the path of a webhook URL is often its secret. */
  public String host() {
    return host;
  }

  /** What logs and {@code config check} show: the format, the URL's host only, signed or not. */
  @Override
  public String toString() {
    return format.id() + " " + shown + (signed() ? " (signed)" : "");
  }
}
