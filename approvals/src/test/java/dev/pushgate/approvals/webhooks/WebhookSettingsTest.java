package dev.pushgate.approvals.webhooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The webhooks list: what it takes, what it refuses and how, and what it shows. */
class WebhookSettingsTest {
  private static final String SLACK = "https://hooks.slack.com/services/T0/B0/secretpath";

  @Test
  void readsAJsonListWithFormatsAndSecrets() {
    WebhookSettings s = WebhookSettings.parse("[{\"url\": \"" + SLACK + "\", \"format\":"
        + " \"slack\"}, {\"url\": \"https://ci.example.com/hook\", \"secret\": \"k3y\"}]");
    assertThat(s.webhooks()).hasSize(2);
    assertThat(s.webhooks().get(0).format()).isEqualTo(Webhook.Format.SLACK);
    assertThat(s.webhooks().get(0).signed()).isFalse();
    assertThat(s.webhooks().get(1).format()).isEqualTo(Webhook.Format.GENERIC);
    assertThat(s.webhooks().get(1).signed()).isTrue();
    assertThat(s.webhooks().get(1).url().reveal()).isEqualTo("https://ci.example.com/hook");
  }

  @Test
  void readsYamlToo() {
    WebhookSettings s = WebhookSettings.parse("- url: http://127.0.0.1:9000/relay\n"
        + "  format: GENERIC\n");
    assertThat(s.webhooks()).singleElement()
        .satisfies(w -> assertThat(w.host()).isEqualTo("127.0.0.1"));
  }

  @Test
  void noneWhenNullOrBlankOrAnEmptyList() {
    assertThat(WebhookSettings.parse(null)).isEqualTo(WebhookSettings.NONE);
    assertThat(WebhookSettings.parse("  ")).isEqualTo(WebhookSettings.NONE);
    assertThat(WebhookSettings.parse("[]").webhooks()).isEmpty();
    assertThat(WebhookSettings.NONE.describe()).isEqualTo("~");
  }

  @Test
  void showsFormatAndHostButNeverThePathOrTheSecret() {
    WebhookSettings s = WebhookSettings.parse("[{\"url\": \"" + SLACK + "\", \"format\":"
        + " \"slack\", \"secret\": \"k3y-do-not-show\"}, {\"url\": \"http://[::1]:8080/x?token=t\"}]");
    assertThat(s.describe()).isEqualTo("slack https://hooks.slack.com/*** (signed);"
        + " generic http://[::1]:8080/***");
    assertThat(s.toString()).doesNotContain("secretpath").doesNotContain("k3y")
        .doesNotContain("token=t");
  }

  @ParameterizedTest
  @ValueSource(strings = {"http://localhost/x", "http://127.0.0.1:1/x", "http://127.1.2.3/x",
      "http://[::1]/x", "HTTP://LOCALHOST/x", "https://example.com/x", "HTTPS://example.com"})
  void takesHttpsAnywhereAndHttpToLoopback(String url) {
    assertThat(WebhookSettings.parse("[{\"url\": \"" + url + "\"}]").webhooks()).hasSize(1);
  }

  @Test
  void refusesPlainHttpToANonLoopbackHostNamingItButNotThePath() {
    for (String url : java.util.List.of("http://hooks.example.com/secretpath",
        "http://127.0.0.1.nip.io/secretpath", "http://10.0.0.1/secretpath",
        "http://0x7f000001/secretpath", "http://localhost.example.com/secretpath")) {
      assertThatThrownBy(() -> WebhookSettings.parse("[{\"url\": \"" + url + "\"}]")).as(url)
          .hasMessageStartingWith("webhook 1: plain http is allowed only to a loopback address")
          .hasMessageNotContaining("secretpath");
    }
  }

  @Test
  void refusesOtherSchemesUserInfoFragmentsAndNoHost() {
    assertRefused("[{\"url\": \"ftp://example.com/secretpath\"}]",
        "webhook 1: the url must start with https:// (or http:// to a loopback address)");
    assertRefused("[{\"url\": \"javascript:alert(1)\"}]",
        "webhook 1: the url must start with https:// (or http:// to a loopback address)");
    assertRefused("[{\"url\": \"/relative/secretpath\"}]",
        "webhook 1: the url must start with https:// (or http:// to a loopback address)");
    assertRefused("[{\"url\": \"https://user:secretpath@example.com/\"}]",
        "webhook 1: the url must not carry a user name or password; sign the body with a secret"
            + " instead");
    assertRefused("[{\"url\": \"https://example.com/x#secretpath\"}]",
        "webhook 1: the url must not have a #fragment");
    assertRefused("[{\"url\": \"https:///secretpath\"}]", "webhook 1: the url has no host");
    assertRefused("[{\"url\": \"https://exa mple.com/secretpath\"}]",
        "webhook 1: the url is not a valid URL");
  }

  @Test
  void refusesMalformedEntriesByTheirPlace() {
    assertRefused("{\"url\": \"https://example.com\"}",
        "--webhooks must be a list of {url, format, secret}");
    assertRefused("\"https://example.com/secretpath\"",
        "--webhooks must be a list of {url, format, secret}");
    assertRefused("[\"https://example.com/secretpath\"]",
        "webhook 1 must be a mapping with url, format and secret");
    assertRefused("[{\"url\": \"https://a.example\"}, {\"format\": \"slack\"}]",
        "webhook 2: url is missing");
    assertRefused("[{\"url\": 42}]", "webhook 1: url must be a string");
    assertRefused("[{\"url\": [\"https://a.example\"]}]", "webhook 1: url must be a string");
    assertRefused("[{\"url\": \"https://a.example\", \"format\": \"teams\"}]",
        "webhook 1: format takes generic or slack, not: \"teams\"");
    assertRefused("[{\"url\": \"https://a.example\", \"secret\": \"\"}]",
        "webhook 1: secret is empty; leave it out for unsigned bodies");
    assertRefused("[{\"url\": \"https://a.example\", \"secret\": 12345}]",
        "webhook 1: secret must be a string");
    assertRefused("[{\"url\": \"https://a.example\", \"sekret\": \"x\"}]",
        "webhook 1: unknown key \"sekret\" (known: url, format, secret)");
    assertRefused("[{\"url\": \"https://a.example\", \"url\": \"https://b.example\"}]",
        "--webhooks is not a valid JSON or YAML list (line 1, column");
  }

  @Test
  void aSyntaxErrorNamesTheLineNotTheText() {
    assertThatThrownBy(() -> WebhookSettings.parse("[{\"url\": \"https://x.example/secretpath"))
        .hasMessageStartingWith("--webhooks is not a valid JSON or YAML list (line")
        .hasMessageNotContaining("secretpath");
  }

  @Test
  void refusesMoreThanItsLimit() {
    String one = "{\"url\": \"https://a.example/\"}";
    String many = "[" + String.join(",", java.util.Collections.nCopies(17, one)) + "]";
    assertRefused(many, "--webhooks lists 17 webhooks; at most 16 are allowed");
  }

  private static void assertRefused(String text, String message) {
    assertThatThrownBy(() -> WebhookSettings.parse(text)).as(text)
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith(message)
        .hasMessageNotContaining("secretpath");
  }
}
