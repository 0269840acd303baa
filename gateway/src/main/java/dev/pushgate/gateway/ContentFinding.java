package dev.pushgate.gateway;

import dev.pushgate.policy.ContentRule;
import dev.pushgate.policy.Decision;
import dev.pushgate.policy.SecretDetectors;
import java.util.Map;

/**
 * One pushed file a content rule matched: the path, what brought it ({@code commit 1a2b3c4}, or
 * {@code tree …} / {@code blob …} for a ref straight at one), the
 * rule, and what the rule saw. Its text names the file and the rule, never a secret's value.
 */
record ContentFinding(String path, String commit, ContentRule rule, Kind kind, String detail) {
  /** What made the rule match. */
  enum Kind {
    /**
     * The file's path or name (a rule without content conditions); detail: empty, or what a
     * symlink points to.
     */
    PATH,
    /** Larger than the rule's maxSize; detail: the size in bytes. */
    SIZE,
    /** A binary file. */
    BINARY,
    /** A detected secret; detail: {@code detectorId:line}. */
    SECRET,
    /** Not judged within the push's time budget; detail: the budget in seconds. */
    NOT_JUDGED
  }

  /** How a person is told what a few gitleaks detectors found; the others say "a secret". */
  private static final Map<String, String> SECRET_NAMES = Map.ofEntries(
      Map.entry("github-pat", "a GitHub personal access token"),
      Map.entry("github-fine-grained-pat", "a GitHub fine-grained personal access token"),
      Map.entry("github-oauth", "a GitHub OAuth token"),
      Map.entry("github-app-token", "a GitHub App token"),
      Map.entry("github-refresh-token", "a GitHub refresh token"),
      Map.entry("aws-access-token", "an AWS access key"),
      Map.entry("gcp-api-key", "a Google Cloud API key"),
      Map.entry("slack-bot-token", "a Slack bot token"),
      Map.entry("slack-user-token", "a Slack user token"),
      Map.entry("slack-app-token", "a Slack app token"),
      Map.entry("slack-webhook-url", "a Slack webhook URL"),
      Map.entry("stripe-access-token", "a Stripe API key"),
      Map.entry("npm-access-token", "an npm access token"),
      Map.entry("pypi-upload-token", "a PyPI upload token"),
      Map.entry("private-key", "a private key"),
      Map.entry("openai-api-key", "an OpenAI API key"),
      Map.entry("anthropic-api-key", "an Anthropic API key"),
      Map.entry("gitlab-pat", "a GitLab personal access token"),
      Map.entry("connection-url-password", "a password in a connection URL"));

  /** The rule's decision; a file that could not be judged is refused (fail closed). */
  Decision decision() {
    return kind == Kind.NOT_JUDGED ? Decision.DENY : rule.decision();
  }

  /** The one line git shows: {@code config/.env matches "no secret files"}. */
  String text() {
    String named = "\"" + rule.name() + "\"";
    String s = switch (kind) {
      case PATH -> path + " matches " + named + (detail.isEmpty() ? "" : " (" + detail + ")");
      case SIZE -> path + " is larger than " + bytes(rule.maxSize().orElse(0)) + " (rule "
          + named + ")";
      case BINARY -> path + " is a binary file (rule " + named + ")";
      case NOT_JUDGED -> path + " could not be scanned within " + detail + " s (rule " + named
          + "); nothing was pushed";
      case SECRET -> {
        String id = detail.substring(0, detail.indexOf(':'));
        String line = detail.substring(detail.indexOf(':') + 1);
        yield path + (line.equals("0") ? "" : ":" + line) + " holds "
            + SECRET_NAMES.getOrDefault(id, "a secret") + " (rule " + named + ", "
            + (SecretDetectors.OWN_IDS.contains(id) ? "pushgate" : "gitleaks") + " id " + id + ")";
      }
    };
    return rule.reason() == null || kind == Kind.NOT_JUDGED ? s : s + ": " + rule.reason();
  }

  /** The audited line: the text and the commit. */
  String audited() {
    return text() + " in " + commit;
  }

  static String bytes(long n) {
    if (n >= 1L << 30 && n % (1L << 30) == 0) {
      return n / (1L << 30) + " GiB";
    }
    if (n >= 1L << 20 && n % (1L << 20) == 0) {
      return n / (1L << 20) + " MiB";
    }
    if (n >= 1L << 10 && n % (1L << 10) == 0) {
      return n / (1L << 10) + " KiB";
    }
    return n + " bytes";
  }
}
