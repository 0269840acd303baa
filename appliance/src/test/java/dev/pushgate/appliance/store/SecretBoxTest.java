package dev.pushgate.appliance.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pushgate.types.Secret;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecretBoxTest {
  private static final Secret TOKEN = Secret.of("ghs_16C7e42F292c6912E7710c838347Ae178B4a");

  @TempDir Path dir;

  @Test
  void opensWhatItSealed() throws Exception {
    SecretBox box = SecretBox.openOrCreate(dir.resolve("ledger.key"));

    assertThat(box.open(box.seal(TOKEN)).reveal()).isEqualTo(TOKEN.reveal());
  }

  @Test
  void createsA32ByteKeyReadableByItsOwnerOnly() throws Exception {
    Path key = dir.resolve("ledger.key");

    SecretBox.openOrCreate(key);

    assertThat(Files.size(key)).isEqualTo(32);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(key))).isEqualTo("rw-------");
  }

  @Test
  void theSameKeyFileOpensBoxesSealedBeforeARestart() throws Exception {
    Path key = dir.resolve("ledger.key");
    byte[] sealed = SecretBox.openOrCreate(key).seal(TOKEN);

    assertThat(SecretBox.openOrCreate(key).open(sealed).reveal()).isEqualTo(TOKEN.reveal());
  }

  @Test
  void aSealedBoxNeitherShowsTheSecretNorRepeats() throws Exception {
    SecretBox box = SecretBox.openOrCreate(dir.resolve("ledger.key"));

    byte[] first = box.seal(TOKEN);
    byte[] second = box.seal(TOKEN);

    assertThat(new String(first, StandardCharsets.ISO_8859_1)).doesNotContain("ghs_");
    assertThat(first).isNotEqualTo(second);
    assertThat(first).hasSize(12 + TOKEN.reveal().length() + 16);
  }

  @Test
  void aTamperedBoxIsRefused() throws Exception {
    SecretBox box = SecretBox.openOrCreate(dir.resolve("ledger.key"));
    byte[] sealed = box.seal(TOKEN);

    for (int at : new int[] {0, 11, 12, sealed.length - 1}) {
      byte[] tampered = sealed.clone();
      tampered[at] ^= 0x01;
      assertThatThrownBy(() -> box.open(tampered)).as("byte %d flipped", at)
          .isInstanceOf(GeneralSecurityException.class);
    }
    assertThatThrownBy(() -> box.open(Arrays.copyOf(sealed, sealed.length - 1)))
        .isInstanceOf(GeneralSecurityException.class);
  }

  /**
   * Shorter than a nonce and a tag, the JDK's GCM throws an unchecked ProviderException, which
   * would escape the ledger's "skip what cannot be unsealed" and stop every revocation.
   */
  @Test
  void aBoxTooShortToHoldANonceAndATagIsRefused() throws Exception {
    SecretBox box = SecretBox.openOrCreate(dir.resolve("ledger.key"));

    for (int length : new int[] {0, 12, 13, 27}) {
      assertThatThrownBy(() -> box.open(new byte[length])).as("%d bytes", length)
          .isInstanceOf(GeneralSecurityException.class).hasMessage("sealed value too short");
    }
    assertThatThrownBy(() -> box.open(new byte[28])).isInstanceOf(GeneralSecurityException.class);
  }

  @Test
  void anotherKeyCannotOpenTheBox() throws Exception {
    byte[] sealed = SecretBox.openOrCreate(dir.resolve("a.key")).seal(TOKEN);
    SecretBox other = SecretBox.openOrCreate(dir.resolve("b.key"));

    assertThatThrownBy(() -> other.open(sealed)).isInstanceOf(GeneralSecurityException.class);
  }

  @Test
  void aKeyFileOfTheWrongLengthIsAClearError() throws Exception {
    for (int length : new int[] {0, 16, 31, 33, 64}) {
      Path key = dir.resolve("ledger-" + length + ".key");
      Files.write(key, new byte[length]);

      assertThatThrownBy(() -> SecretBox.openOrCreate(key)).as("%d bytes", length)
          .isInstanceOf(IOException.class)
          .hasMessage("the ledger key " + key + " is damaged (expected 32 bytes); restore it from"
              + " backup: without it the ledger's tokens cannot be revoked");
    }
  }

  @Test
  void anExistingKeyFileIsNeverReplaced() throws Exception {
    Path key = dir.resolve("ledger.key");
    byte[] bytes = new byte[32];
    Arrays.fill(bytes, (byte) 7);
    Files.write(key, bytes);

    SecretBox.openOrCreate(key);

    assertThat(Files.readAllBytes(key)).isEqualTo(bytes);
  }
}
