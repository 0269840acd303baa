package dev.pushgate.appliance.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class EnvDefaultsTest {
  private static CommandLine parse(Map<String, String> env, String... args) {
    CommandLine cli = new CommandLine(new Main());
    cli.setDefaultValueProvider(new EnvDefaults(env));
    CommandLine.ParseResult r = cli.parseArgs(args);
    while (r.hasSubcommand()) {
      r = r.subcommand();
    }
    return r.commandSpec().commandLine();
  }

  @Test
  void everyAdminCommandTakesItsDataDirectoryFromTheEnvironment() {
    Map<String, String> env = Map.of("PUSHGATE_DATA_DIR", "/var/lib/pushgate");
    assertThat(((RunsCommand) parse(env, "runs").getCommand()).dataDir.path)
        .isEqualTo(Path.of("/var/lib/pushgate"));
    assertThat(((RunsCommand.Stop) parse(env, "runs", "stop", "r1").getCommand()).dataDir.path)
        .isEqualTo(Path.of("/var/lib/pushgate"));
    assertThat(((ApprovalsCommand.Watch) parse(env, "approvals", "watch").getCommand()).dataDir.path)
        .isEqualTo(Path.of("/var/lib/pushgate"));
    assertThat(((AuditVerifyCommand) parse(env, "audit", "verify").getCommand()).database.dataDir)
        .isEqualTo(Path.of("/var/lib/pushgate"));
    assertThat(((ForgeCommand.Create) parse(env, "forge", "create", "a/b").getCommand()).dataDir)
        .isEqualTo(Path.of("/var/lib/pushgate"));
    assertThat(((ConfigCommand.Check) parse(env, "config", "check").getCommand()).dataDir)
        .isEqualTo(Path.of("/var/lib/pushgate"));
  }

  @Test
  void aFlagWinsOverItsVariable() {
    AuditCommand audit = (AuditCommand) parse(Map.of("PUSHGATE_DATA_DIR", "/env",
        "PUSHGATE_DATABASE_URL", "/env/db", "PUSHGATE_LIMIT", "5"), "audit", "--data-dir", "/flag")
        .getCommand();
    assertThat(audit.database.dataDir).isEqualTo(Path.of("/flag"));
    assertThat(audit.database.databaseUrl).isEqualTo("/env/db");
    assertThat(audit.limit).isEqualTo(5);
  }

  @Test
  void withoutTheVariableTheBuiltInDefaultStays() {
    assertThat(((RunsCommand) parse(Map.of(), "runs").getCommand()).dataDir.path)
        .isEqualTo(Path.of("pushgate-data"));
  }

  @Test
  void unknownVariablesAreNamedWithTheirLikelyMeaning() {
    assertThat(EnvDefaults.unknown(Map.of("PUSHGATE_PROT", "1", "PUSHGATE_PORT", "2",
        "PUSHGATE_RUN_TOKEN", "t", "PUSHGATE_HOOK_URL", "u", "PUSHGATE_CONFIG", "c",
        "PUSHGATE_TEST_POSTGRES_URL", "p", "PUSHGATE_ZZZZZZZZ", "z", "PATH", "/bin")))
        .containsExactly("PUSHGATE_PROT (did you mean PUSHGATE_PORT?)", "PUSHGATE_ZZZZZZZZ");
  }

  @Test
  void configFileRefusesAnUnknownVariableAsItRefusesAnUnknownKey() {
    assertThatThrownBy(() -> ConfigFile.load(new String[0],
        Map.of("PUSHGATE_APPROVAL_TIMOUT", "1m"), List.of("approval-timeout")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown environment variable PUSHGATE_APPROVAL_TIMOUT"
            .replace("TIMEOUT", "TIMOUT") + " (did you mean PUSHGATE_APPROVAL_TIMEOUT?)");
  }

  @Test
  void theLogFormatIsChosenBeforeLoggingStartsFromTheFlagOrElseTheVariable() {
    Map<String, String> json = Map.of("PUSHGATE_LOG_FORMAT", "json");
    assertThat(Main.logFormat(new String[] {"serve"}, json)).isEqualTo("json");
    assertThat(Main.logFormat(new String[] {"serve", "--log-format", "text"}, json))
        .isEqualTo("text");
    assertThat(Main.logFormat(new String[] {"serve", "--log-format=json"}, Map.of()))
        .isEqualTo("json");
    assertThat(Main.logFormat(new String[] {"serve"}, Map.of())).isNull();
  }
}
