package dev.pushgate.approvals.webhooks;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.pushgate.types.UntrustedText;
import dev.pushgate.types.Secret;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * The webhooks {@code serve} posts approval events to: {@code --webhooks}, {@code
 * PUSHGATE_WEBHOOKS} or the file's {@code webhooks:} list, each entry {@code {url, format:
 * generic|slack, secret}}. Messages name an entry by its place ("webhook 2"), never by its URL.
 */
public record WebhookSettings(List<Webhook> webhooks) {
  public static final WebhookSettings NONE = new WebhookSettings(List.of());
  /** More would be a configuration mistake, and each one is an HTTP call per question. */
  public static final int MAX_WEBHOOKS = 16;
  private static final Set<String> KEYS = Set.of("url", "format", "secret");

  public WebhookSettings {
    webhooks = List.copyOf(webhooks);
  }

  /**
   * The list as the option's value gives it: JSON, or YAML (which the file's list is turned into
   * JSON as); null or blank is none.
   */
  public static WebhookSettings parse(String text) {
    if (text == null || text.isBlank()) {
      return NONE;
    }
    ObjectMapper yaml = new ObjectMapper(new YAMLFactory())
        .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    JsonNode root;
    try {
      root = yaml.readTree(text);
    } catch (JsonProcessingException e) {
      // The parser's own message may quote the text, and the text holds URLs and keys.
      throw new IllegalArgumentException("--webhooks is not a valid JSON or YAML list (line "
          + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")");
    }
    if (root == null || root.isNull() || root.isMissingNode()) {
      return NONE;
    }
    if (!root.isArray()) {
      throw new IllegalArgumentException("--webhooks must be a list of {url, format, secret}");
    }
    if (root.size() > MAX_WEBHOOKS) {
      throw new IllegalArgumentException("--webhooks lists " + root.size() + " webhooks; at most "
          + MAX_WEBHOOKS + " are allowed");
    }
    List<Webhook> out = new ArrayList<>();
    for (int i = 0; i < root.size(); i++) {
      out.add(entry("webhook " + (i + 1), root.get(i)));
    }
    return new WebhookSettings(out);
  }

  private static Webhook entry(String name, JsonNode e) {
    if (!e.isObject()) {
      throw new IllegalArgumentException(name + " must be a mapping with url, format and secret");
    }
    for (Iterator<String> it = e.fieldNames(); it.hasNext(); ) {
      String key = it.next();
      if (!KEYS.contains(key)) {
        throw new IllegalArgumentException(name + ": unknown key " + shown(key)
            + " (known: url, format, secret)");
      }
    }
    String url = text(name, e, "url");
    if (url == null) {
      throw new IllegalArgumentException(name + ": url is missing");
    }
    String format = text(name, e, "format");
    Webhook.Format f;
    if (format == null || format.equalsIgnoreCase("generic")) {
      f = Webhook.Format.GENERIC;
    } else if (format.equalsIgnoreCase("slack")) {
      f = Webhook.Format.SLACK;
    } else {
      throw new IllegalArgumentException(name + ": format takes generic or slack, not: "
          + shown(format));
    }
    String secret = text(name, e, "secret");
    if (secret != null && secret.isEmpty()) {
      throw new IllegalArgumentException(name + ": secret is empty; leave it out for unsigned"
          + " bodies");
    }
    return Webhook.of(name, url, f, secret == null ? null : Secret.of(secret));
  }

  private static String text(String name, JsonNode e, String key) {
    JsonNode v = e.get(key);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isTextual()) {
      throw new IllegalArgumentException(name + ": " + key + " must be a string");
    }
    return v.asText();
  }

  /** What {@code config check} shows: each webhook's format and host, never its URL or key. */
  public String describe() {
    if (webhooks.isEmpty()) {
      return "~";
    }
    return String.join("; ", webhooks.stream().map(Webhook::toString).toList());
  }

  /** A key or format as typed, short and printable: it is echoed in a refusal. */
  private static String shown(String s) {
    String t = s.length() > 40 ? s.substring(0, 40) + "…" : s;
    return "\"" + UntrustedText.visible(t) + "\"";
  }
}
