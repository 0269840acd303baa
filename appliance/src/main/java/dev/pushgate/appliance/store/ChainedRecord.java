package dev.pushgate.appliance.store;

import dev.pushgate.types.AuditEntry;

/**
 * An audit record as stored: its row id, its place in its host's chain, and what it says.
 *
 * @param chained {@code write} for a record chained when it was written, {@code upgrade} for one
 *     written before the chain existed and chained when the database was upgraded
 */
public record ChainedRecord(long id, String host, long seq, String prevHash, String hash,
    String chained, AuditEntry entry) {
  public static final String AT_WRITE = "write";
  public static final String AT_UPGRADE = "upgrade";

  /** Whether {@code hash} is what this record's content hashes to. */
  public boolean hashMatches() {
    return AuditHash.of(this).equals(hash);
  }
}
