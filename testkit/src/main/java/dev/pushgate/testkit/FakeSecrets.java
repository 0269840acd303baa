package dev.pushgate.testkit;

/**
 * Made-up secrets in the formats the detectors look for. Each is built by concatenation at run
 * time, so this repository's own files hold nothing a secret scanner would flag.
 */
public final class FakeSecrets {
  private static final String MIXED = "q7Rz2Kx9Lm4Np8Ts3Vw6Yb1Cd5Fg0Hj";

  private FakeSecrets() {}

  /** {@code n} characters of letters and digits with high entropy, varied by {@code seed}. */
  public static String mixed(int n, int seed) {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < n; i++) {
      s.append(MIXED.charAt((i * 7 + seed) % MIXED.length()));
    }
    return s.toString();
  }

  public static String githubPat() {
    return "gh" + "p_" + mixed(36, 1);
  }

  public static String githubFineGrained() {
    return "github" + "_pat_" + mixed(82, 2);
  }

  public static String awsAccessKey() {
    return "AK" + "IA" + "Q3RT5ZX7WB2MN4KP";
  }

  public static String gcpApiKey() {
    return "AI" + "za" + "SyD4x9Kq2Lm7Np3Rs8Tv1Wx6Yz0Bc5Df-gH";
  }

  public static String slackBot() {
    return "xo" + "xb-" + "263594206564" + "-" + "2966443983424" + "-" + mixed(24, 3);
  }

  public static String stripeLive() {
    return "sk" + "_live_" + mixed(24, 4);
  }

  public static String npm() {
    return "np" + "m_" + mixed(36, 5).toLowerCase(java.util.Locale.ROOT);
  }

  public static String pypi() {
    return "pypi-" + "AgEIcHlwaS5vcmc" + mixed(60, 6);
  }

  public static String privateKey() {
    StringBuilder body = new StringBuilder();
    for (int i = 0; i < 6; i++) {
      body.append(mixed(64, i)).append('\n');
    }
    return "-----BEGIN RSA " + "PRIVATE KEY-----\n" + body + "-----END RSA " + "PRIVATE KEY-----\n";
  }

  /** A GCP service account's key file: its private key, JSON-escaped on one line. */
  public static String gcpServiceAccount() {
    return "{\n  \"type\": \"service_account\",\n  \"project_id\": \"demo\",\n"
        + "  \"private_key\": \"" + privateKey().replace("\n", "\\n") + "\",\n"
        + "  \"client_email\": \"x@demo.iam.gserviceaccount.com\"\n}\n";
  }
}
