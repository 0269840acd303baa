package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HomeToolchainsTest {
  @Test
  void showsEachToolchainsOwnDirectoryUnderTheHomeAndRustupBesideCargo() {
    assertThat(HomeToolchains.of("/home/u", "/home/u/.pyenv/shims:/home/u/.pyenv/bin:/usr/bin"
        + ":/home/u/.cargo/bin:/home/u/.nvm/versions/node/v20.1.0/bin:/home/u/go/bin"
        + ":/home/u/.sdkman/candidates/java/current/bin"))
        .containsExactly("/home/u/.pyenv", "/home/u/.cargo", "/home/u/.rustup", "/home/u/.nvm",
            "/home/u/go", "/home/u/.sdkman");
  }

  @Test
  void neverTheHomeItselfASecretPathOrAllOfACatchAllDirectory() {
    assertThat(HomeToolchains.of("/home/u", "/home/u:/home/u/.ssh/bin:/home/u/.config/gh/bin"
        + ":/home/u/.aws/cli:/home/u/.local/bin:/home/u/.config/tool/bin:/home/u/x/../.ssh"
        + ":relative/bin:/home/user2/bin"))
        .containsExactly("/home/u/.local/bin", "/home/u/.config/tool/bin");
  }

  @Test
  void namesTheSecretPathsInsideWhatIsShown() {
    assertThat(HomeToolchains.secretsInside("/home/u", java.util.List.of("/home/u/.cargo")))
        .contains("/home/u/.cargo/credentials", "/home/u/.cargo/credentials.toml")
        .noneMatch(p -> p.contains(".ssh"));
  }

  @Test
  void aToolchainThatLinksIntoASecretPathIsNotShown(@org.junit.jupiter.api.io.TempDir
      java.nio.file.Path home) throws Exception {
    java.nio.file.Files.createDirectories(home.resolve(".ssh"));
    java.nio.file.Files.createDirectories(home.resolve(".pyenv"));
    java.nio.file.Files.createSymbolicLink(home.resolve("tools"), home.resolve(".ssh"));
    assertThat(HomeToolchains.leadsToASecret(home.toString(), home.resolve("tools")))
        .isEqualTo("it leads to " + home.resolve(".ssh") + ", which a run may not read");
    assertThat(HomeToolchains.leadsToASecret(home.toString(), home.resolve(".pyenv"))).isNull();
  }
}
