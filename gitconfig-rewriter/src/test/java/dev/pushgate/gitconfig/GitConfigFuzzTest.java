package dev.pushgate.gitconfig;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Coverage-guided fuzzing of the git-config writer against the scanner that reads config files as
 * git's {@code config.c} does (docs/fuzzing.md; ConfigScannerTest checks the scanner against git).
 */
class GitConfigFuzzTest {
  /**
   * Any value and subsection name is either refused with an {@link IllegalArgumentException}
   * (exactly when it holds a NUL, an unpaired surrogate, or, in a subsection, a newline) or reads
   * back exactly.
   */
  @FuzzTest(maxDuration = "2m")
  void valuesAndSubsectionsReadBackExactlyOrAreRefused(FuzzedDataProvider data) throws Exception {
    String subsection = data.consumeString(40);
    String value = data.consumeRemainingAsString();
    boolean valueOk = value.indexOf('\0') < 0 && !Fuzz.hasUnpairedSurrogate(value);
    boolean subsectionOk = subsection.indexOf('\0') < 0 && subsection.indexOf('\n') < 0
        && !Fuzz.hasUnpairedSurrogate(subsection);
    String text;
    try {
      text = "[s " + ConfigSyntax.subsection(subsection) + "]\n\tk = " + ConfigSyntax.value(value)
          + "\n";
    } catch (IllegalArgumentException e) {
      assertThat(valueOk && subsectionOk).as("refused: %s", e.getMessage()).isFalse();
      return;
    }
    assertThat(valueOk && subsectionOk).as("accepted").isTrue();
    List<ConfigEntry> entries = ConfigScanner.scan(latin1(text));
    assertThat(entries).hasSize(1);
    assertThat(entries.get(0).variable()).isEqualTo(latin1("s." + subsection + ".k"));
    assertThat(entries.get(0).value()).isEqualTo(latin1(value));
  }

  /**
   * A run's whole config file. The input is UTF-8 lines: gateway base URL, git host (empty for
   * github.com), run credential, then the forge base URL (the rest; empty for none). The config is refused with an {@link
   * IllegalArgumentException} that does not depend on the credential (or says only what is wrong
   * with it), or the rendered file reads back as exactly the entries that went in.
   */
  @FuzzTest(maxDuration = "2m")
  void renderedRunConfigReadsBackExactlyOrIsRefused(byte[] input) throws Exception {
    String[] parts = new String(input, StandardCharsets.UTF_8).split("\n", 4);
    if (parts.length < 4) {
      return;
    }
    String gateway = parts[0];
    String host = parts[1].isEmpty() ? RunGitConfig.DEFAULT_GIT_HOST.baseUrl() : parts[1];
    String credential = parts[2];
    String forge = parts[3].isEmpty() ? null : parts[3];
    RunGitConfig config;
    try {
      config = config(gateway, host, credential, forge);
    } catch (IllegalArgumentException e) {
      // Refused for another part, the answer is the same whatever the credential; refused for the
      // credential, it says what is wrong with it without a character of it.
      String otherwise;
      try {
        config(gateway, host, "pgr_canary_0", forge);
        otherwise = null;
      } catch (IllegalArgumentException canary) {
        otherwise = canary.getMessage();
      }
      if (!e.getMessage().equals(otherwise)) {
        assertThat(e.getMessage()).matches(CREDENTIAL_REFUSAL);
      }
      return;
    }
    String text = GitConfigFile.render(config);
    List<String> read = new ArrayList<>();
    for (ConfigEntry e : ConfigScanner.scan(latin1(text))) {
      read.add(e.variable() + "=" + e.value());
    }
    assertThat(read).containsExactlyElementsOf(expected(config));
  }

  private static final String CREDENTIAL_REFUSAL = "run credential (is empty|is longer than [0-9]+"
      + " characters|must be visible ASCII; found 0x[0-9a-f]+ at index [0-9]+)";

  private static RunGitConfig config(String gateway, String host, String credential,
      String forge) {
    return new RunGitConfig(gateway, GitHost.of(host), credential, Optional.ofNullable(forge));
  }

  // what the file must hold, written out independently of the renderer (as git --list prints it)
  private static List<String> expected(RunGitConfig c) {
    String gatewayHost = c.gatewayBaseUrl() + "/git/" + c.gitHost().segment() + "/";
    // the spellings themselves are GitHostTest's subject
    List<String> forms = new ArrayList<>(c.gitHost().pushPrefixes());
    c.fetchBaseUrl().ifPresent(forms::add);
    List<String> out = new ArrayList<>();
    forms.forEach(f -> out.add("url." + gatewayHost + ".pushinsteadof=" + f));
    forms.forEach(f -> out.add("url." + gatewayHost + ".insteadof=" + f));
    out.add("http." + c.gatewayBaseUrl() + "/git/.extraheader=");
    out.add("http." + c.gatewayBaseUrl() + "/git/.extraheader=Authorization: Bearer "
        + c.runCredential());
    out.add("credential.helper=");
    out.add("core.sshcommand=" + SshPushGuard.command(c.gitHost()));
    out.add("ssh.variant=ssh");
    return out.stream().map(GitConfigFuzzTest::latin1).toList();
  }

  /** UTF-8 bytes as ISO-8859-1 characters, the form the scanner reads. */
  private static String latin1(String s) {
    return new String(s.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
  }
}
