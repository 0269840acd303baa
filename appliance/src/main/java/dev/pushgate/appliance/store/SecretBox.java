package dev.pushgate.appliance.store;

import dev.pushgate.types.Secret;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Encrypts tokens at rest (AES-256-GCM) with a key kept in a file of mode 0600 beside the
 * database, so that a copy of the database alone reveals no token.
 */
public final class SecretBox {
  private static final int NONCE_BYTES = 12;
  private static final int TAG_BITS = 128;

  private final SecretKeySpec key;
  private final SecureRandom random = new SecureRandom();

  private SecretBox(byte[] key) {
    this.key = new SecretKeySpec(key, "AES");
  }

  /** Loads the key file, creating it (mode 0600) on first use. */
  public static SecretBox openOrCreate(Path keyFile) throws IOException {
    if (!Files.exists(keyFile)) {
      byte[] fresh = new byte[32];
      new SecureRandom().nextBytes(fresh);
      Files.createFile(keyFile, PosixFilePermissions.asFileAttribute(
          PosixFilePermissions.fromString("rw-------")));
      Files.write(keyFile, fresh, StandardOpenOption.TRUNCATE_EXISTING);
    }
    // A key others could read is no secret: tighten it rather than run with it open.
    Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-------"));
    byte[] key = Files.readAllBytes(keyFile);
    if (key.length != 32) {
      throw new IOException("the ledger key " + keyFile + " is damaged (expected 32 bytes); "
          + "restore it from backup: without it the ledger's tokens cannot be revoked");
    }
    return new SecretBox(key);
  }

  public byte[] seal(Secret secret) {
    try {
      byte[] nonce = new byte[NONCE_BYTES];
      random.nextBytes(nonce);
      Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
      c.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
      byte[] sealed = c.doFinal(secret.reveal().getBytes(StandardCharsets.UTF_8));
      return ByteBuffer.allocate(NONCE_BYTES + sealed.length).put(nonce).put(sealed).array();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM is not available", e);
    }
  }

  public Secret open(byte[] box) throws GeneralSecurityException {
    if (box.length < NONCE_BYTES + TAG_BITS / 8) {
      throw new GeneralSecurityException("sealed value too short");
    }
    Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
    c.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, box, 0, NONCE_BYTES));
    byte[] plain = c.doFinal(box, NONCE_BYTES, box.length - NONCE_BYTES);
    return Secret.of(new String(plain, StandardCharsets.UTF_8));
  }
}
