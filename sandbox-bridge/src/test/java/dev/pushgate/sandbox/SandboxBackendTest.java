package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SandboxBackendTest {

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(
      nullValues = "-",
      value = {
        "-, NONE",
        "'', NONE",
        "native, NATIVE",
        "NATIVE, NATIVE",
        "docker, NATIVE",
        "Docker, NATIVE",
        "none, NONE",
        "microvm, MICROVM",
        "vm, NONE",
        "bubblewrap, NONE",
        "seatbelt, NONE",
      })
  void readsStoredValues(String stored, SandboxBackend expected) {
    assertThat(SandboxBackend.fromName(stored)).isEqualTo(expected);
  }

  @Test
  void idsAreLowerCase() {
    assertThat(SandboxBackend.NATIVE.id()).isEqualTo("native");
    assertThat(SandboxBackend.NONE.id()).isEqualTo("none");
    assertThat(SandboxBackend.MICROVM.id()).isEqualTo("microvm");
    assertThat(SandboxBackend.NONE.wraps()).isFalse();
    assertThat(SandboxBackend.NATIVE.wraps()).isTrue();
    assertThat(SandboxBackend.MICROVM.wraps()).isTrue();
  }

  @Test
  void aRequestedBackendMustBeKnown() {
    assertThat(SandboxBackend.parseRequested(null)).isEmpty();
    assertThat(SandboxBackend.parseRequested("docker")).isEqualTo(Optional.of(SandboxBackend.NATIVE));
    assertThat(SandboxBackend.parseRequested("microvm"))
        .isEqualTo(Optional.of(SandboxBackend.MICROVM));
    assertThatThrownBy(() -> SandboxBackend.parseRequested("mircovm"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unknown sandbox backend: mircovm (expected native, none or microvm)");
    assertThatThrownBy(() -> SandboxBackend.parseRequested(""))
        .hasMessage("unknown sandbox backend: \"\" (expected native, none or microvm)");
  }
}
