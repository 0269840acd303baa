package dev.pushgate.gitconfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class CredentialCommandTest {
  @Test
  void readsTheTokenFromTheNamedVariableForGetOnly() {
    assertThat(CredentialCommand.fromEnvironment("PUSHGATE_READ_TOKEN").helperValue())
        .isEqualTo("!f() { test \"$1\" = get || exit 0; test -n \"$PUSHGATE_READ_TOKEN\" || exit 0; "
            + "printf 'username=x-access-token\\npassword=%s\\n' \"$PUSHGATE_READ_TOKEN\"; }; f");
    assertThat(CredentialCommand.fromEnvironment())
        .isEqualTo(CredentialCommand.fromEnvironment("GH_TOKEN"));
  }

  @Test
  void refusesAVariableNameThatIsNotOne() {
    assertThatThrownBy(() -> CredentialCommand.fromEnvironment("GH_TOKEN; rm -rf ~"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("not an environment variable name: GH_TOKEN; rm -rf ~");
    assertThatThrownBy(() -> CredentialCommand.fromEnvironment("1X"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("not an environment variable name: 1X");
  }

  @Test
  void refusesAnEmptySnippetAndOneGitCannotStore() {
    assertThatThrownBy(() -> CredentialCommand.shell(" \t"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("credential helper snippet is empty");
    assertThatThrownBy(() -> CredentialCommand.shell("echo\0"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a git config value cannot contain a NUL character (at index 4)");
  }

  @Test
  void aCallerSnippetRunsThroughTheShell() {
    assertThat(CredentialCommand.shell("curl -s http://127.0.0.1:7070/token").helperValue())
        .isEqualTo("!curl -s http://127.0.0.1:7070/token");
  }
}
