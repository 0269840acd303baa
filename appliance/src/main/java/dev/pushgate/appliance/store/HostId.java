package dev.pushgate.appliance.store;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * Which host's appliance started a run, kept in a file of the data directory so it survives
 * restarts. Hosts sharing one database each recover and sweep only their own runs; a host that
 * takes over a dead one's data directory takes over its runs too.
 */
public final class HostId {
  private static final int MAX_LENGTH = 100;

  private HostId() {}

  /** Reads the id in {@code file}, creating it on first use as {@code HOSTNAME-RANDOM}. */
  public static String openOrCreate(Path file) throws IOException {
    if (!Files.exists(file)) {
      byte[] random = new byte[4];
      new SecureRandom().nextBytes(random);
      String id = hostname() + "-" + HexFormat.of().formatHex(random);
      try {
        Files.writeString(Files.createFile(file), id + "\n", StandardCharsets.UTF_8);
      } catch (FileAlreadyExistsException raced) {
        // Another process created it first; read theirs.
      }
    }
    String id = Files.readString(file, StandardCharsets.UTF_8).strip();
    if (id.isEmpty() || id.length() > MAX_LENGTH || !id.matches("[A-Za-z0-9._-]+")) {
      throw new IOException("the host id in " + file + " is damaged (expected up to " + MAX_LENGTH
          + " of A-Z a-z 0-9 . _ -); restore it, or delete it to start as a new host");
    }
    return id;
  }

  private static String hostname() {
    String name;
    try {
      name = InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      name = "host";
    }
    name = name.replaceAll("[^A-Za-z0-9._-]", "");
    if (name.isEmpty()) {
      return "host";
    }
    return name.length() > 60 ? name.substring(0, 60) : name;
  }
}
