package dev.pushgate.forge;

import java.sql.SQLException;
import java.time.Instant;
import java.util.Optional;

/**
 * Where the local forge keeps its installation tokens: a port the forge owns and the appliance
 * fills with a table of its database, so that tokens survive a restart and hosts sharing a store
 * accept each other's. Rows are keyed by the token's SHA-256; the token itself is never stored.
 */
public interface ForgeTokenTable {
  /** Stores a newly issued token's grant under its hash. */
  void insert(String hash, ForgeTokens.Grant grant) throws SQLException;

  /** The grant stored under {@code hash}, if it is neither revoked nor expired at {@code now}. */
  Optional<ForgeTokens.Grant> live(String hash, Instant now) throws SQLException;

  /** Marks the token live at {@code now} under {@code hash} revoked; false when none was live. */
  boolean revoke(String hash, Instant now) throws SQLException;
}
