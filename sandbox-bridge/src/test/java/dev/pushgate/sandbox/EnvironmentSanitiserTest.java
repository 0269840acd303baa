package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class EnvironmentSanitiserTest {
  /** Variables in the order given: names and values alternating. */
  private static Map<String, String> inOrder(String... namesAndValues) {
    Map<String, String> vars = new LinkedHashMap<>();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      vars.put(namesAndValues[i], namesAndValues[i + 1]);
    }
    return vars;
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "LD_DEBUG", "ld_preload",
        "DYLD_INSERT_LIBRARIES", "DYLD_LIBRARY_PATH", "DYLD_FRAMEWORK_PATH",
        "NODE_OPTIONS", "NODE_PATH",
        "GIT_SSH_COMMAND", "GIT_SSH", "GIT_EXEC_PATH", "GIT_ASKPASS", "SSH_ASKPASS",
        "GIT_PROXY_COMMAND", "GIT_EXTERNAL_DIFF", "GIT_DIR", "GIT_WORK_TREE",
        "GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM",
        "GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0", "GIT_CONFIG_PARAMETERS",
        "BASH_ENV", "ENV", "ZDOTDIR", "PROMPT_COMMAND", "SHELLOPTS", "PS4", "BASH_FUNC_ls%%",
        "PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME", "PYTHONWARNINGS", "PYTHONBREAKPOINT",
        "PERL5OPT", "PERL5LIB", "RUBYOPT", "RUBYLIB",
        "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "GCONV_PATH", "OPENSSL_CONF",
        "SSH_AUTH_SOCK", "GH_TOKEN", "GITHUB_TOKEN", "GH_ENTERPRISE_TOKEN",
      })
  void removesInjectionVectorsAndHostCredentials(String name) {
    assertThat(EnvironmentSanitiser.removes(name)).isTrue();
    EnvironmentVariables out =
        EnvironmentSanitiser.sanitise(
            EnvironmentVariables.of(Map.of(name, "x", "PATH", "/usr/bin")),
            EnvironmentVariables.empty());
    assertThat(out.names()).containsExactly("PATH");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"PATH", "HOME", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TERM", "COLORTERM",
          "USER", "LOGNAME", "SHELL", "TMPDIR", "TZ", "GIT_AUTHOR_NAME", "GIT_COMMITTER_EMAIL"})
  void keepsTheBasics(String name) {
    assertThat(EnvironmentSanitiser.basic(name)).isTrue();
    EnvironmentVariables out =
        EnvironmentSanitiser.sanitise(
            EnvironmentVariables.of(Map.of(name, "x")), EnvironmentVariables.empty());
    assertThat(out.asMap()).containsExactly(Map.entry(name, "x"));
  }

  /** The allowlist: what is not a basic is dropped, however harmless or secret its name. */
  @ParameterizedTest
  @ValueSource(
      strings = {"AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID", "VAULT_TOKEN", "GITHUB_PAT",
          "PUSHGATE_DATABASE_URL", "DATABASE_URL", "ANTHROPIC_API_KEY", "NPM_CONFIG__AUTH",
          "PYTHONUNBUFFERED", "NODE_ENV", "EDITOR", "LDFLAGS", "HTTPS_PROXY", "path", "Home"})
  void dropsEveryOtherVariableUnlessTheOperatorPassesIt(String name) {
    EnvironmentVariables host = EnvironmentVariables.of(Map.of(name, "value", "PATH", "/usr/bin"));
    assertThat(EnvironmentSanitiser.sanitise(host, EnvironmentVariables.empty()).asMap())
        .containsExactly(Map.entry("PATH", "/usr/bin"));
    assertThat(EnvironmentSanitiser.sanitise(host, EnvironmentVariables.empty(),
            PassedVariables.of(List.of(name))).asMap())
        .containsOnly(Map.entry("PATH", "/usr/bin"), Map.entry(name, "value"));
  }

  @Test
  void theOperatorCanNeverPassAnInjectionVectorOrAnUnexportableName() {
    assertThatThrownBy(() -> PassedVariables.of(List.of("ANTHROPIC_API_KEY", "LD_PRELOAD")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("cannot pass the variable LD_PRELOAD to runs: it injects code into the run's"
            + " processes or carries the host's git credentials");
    assertThatThrownBy(() -> PassedVariables.of(List.of("GITHUB_TOKEN")))
        .hasMessageContaining("GITHUB_TOKEN");
    assertThatThrownBy(() -> PassedVariables.of(List.of("A-B")))
        .hasMessage("cannot pass the variable A-B to runs: a name is letters, digits and _, not"
            + " starting with a digit");
    assertThat(PassedVariables.of(List.of(" ANTHROPIC_API_KEY ", "")).names())
        .containsExactly("ANTHROPIC_API_KEY");
  }

  @Test
  void sanitisedEnvironmentThenSetsTheRunsOwnVariables() {
    Map<String, String> host = inOrder(
        "PATH", "/usr/bin",
        "HOME", "/home/u",
        "LD_PRELOAD", "/tmp/evil.so",
        "GIT_CONFIG_GLOBAL", "/home/u/.gitconfig",
        "GIT_CONFIG_COUNT", "1",
        "GIT_CONFIG_KEY_0", "url.https://github.com/.pushInsteadOf",
        "GITHUB_TOKEN", "ghp_hostsOwnToken",
        "HTTPS_PROXY", "http://corp-proxy:3128");
    Map<String, String> additions = inOrder(
        "GIT_CONFIG_GLOBAL", "/data/runs/r1/gitconfig",
        "GH_TOKEN", "ghs_runReadToken",
        "HTTPS_PROXY", "http://127.0.0.1:41001",
        "ALL_PROXY", "socks5h://127.0.0.1:41002");

    EnvironmentVariables out =
        EnvironmentSanitiser.sanitise(
            EnvironmentVariables.of(host), EnvironmentVariables.of(additions));
    Map<String, String> expected = inOrder(
        "PATH", "/usr/bin",
        "HOME", "/home/u",
        "GIT_CONFIG_GLOBAL", "/data/runs/r1/gitconfig",
        "GH_TOKEN", "ghs_runReadToken",
        "HTTPS_PROXY", "http://127.0.0.1:41001",
        "ALL_PROXY", "socks5h://127.0.0.1:41002");
    assertThat(out.asMap()).isEqualTo(expected);
  }

  @Test
  void inheritedEnvironmentKeepsTheHostsButNotItsGitConfigOverrides() {
    Map<String, String> host = inOrder(
        "PATH", "/usr/bin",
        "LD_PRELOAD", "/opt/lib.so",
        "NODE_OPTIONS", "--max-old-space-size=4096",
        "GIT_CONFIG_PARAMETERS", "'url.x.pushinsteadof'='y'");
    EnvironmentVariables out =
        EnvironmentSanitiser.inherit(
            EnvironmentVariables.of(host),
            EnvironmentVariables.of(Map.of("GIT_CONFIG_GLOBAL", "/data/runs/r1/gitconfig")));
    assertThat(out.asMap())
        .containsOnly(
            Map.entry("PATH", "/usr/bin"),
            Map.entry("LD_PRELOAD", "/opt/lib.so"),
            Map.entry("NODE_OPTIONS", "--max-old-space-size=4096"),
            Map.entry("GIT_CONFIG_GLOBAL", "/data/runs/r1/gitconfig"));
  }

  @Test
  void toStringNamesVariablesButNeverValues() {
    EnvironmentVariables env = EnvironmentVariables.of(Map.of("GH_TOKEN", "ghs_secretvalue"));
    assertThat(env.toString()).isEqualTo("EnvironmentVariables[GH_TOKEN]").doesNotContain("ghs_");
  }

  @Test
  void refusesUnusableVariablesWithoutEchoingValues() {
    Map<String, String> withNull = new HashMap<>();
    withNull.put("GH_TOKEN", null);
    assertThatThrownBy(() -> EnvironmentVariables.of(withNull))
        .hasMessage("environment variable GH_TOKEN has no value");
    assertThatThrownBy(() -> EnvironmentVariables.of(Map.of("A=B", "v")))
        .hasMessage("environment variable name has = or NUL: A=B");
    assertThatThrownBy(() -> EnvironmentVariables.of(Map.of("", "v")))
        .hasMessage("an environment variable has no name");
    assertThatThrownBy(() -> EnvironmentVariables.of(Map.of("GH_TOKEN", "ghs_x\0y")))
        .hasMessage("environment variable GH_TOKEN has a NUL in its value");
  }

  @Test
  void hostEnvironmentDropsWhatNoProcessCouldStartWith() {
    Map<String, String> host = inOrder(
        "=C:", "C:\\",
        "PATH", "/usr/bin",
        "BAD", "a\0b");
    assertThat(EnvironmentVariables.fromHost(host).asMap()).containsOnly(Map.entry("PATH", "/usr/bin"));
  }
}
