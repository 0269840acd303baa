package dev.pushgate.forge;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The forge's token table in memory, for the forge's own tests; the appliance's SQL table is
 * tested by its storage contract on SQLite and PostgreSQL.
 */
final class MemoryTokenTable implements ForgeTokenTable {
  private final Map<String, ForgeTokens.Grant> grants = new ConcurrentHashMap<>();
  private final Set<String> revoked = ConcurrentHashMap.newKeySet();

  @Override
  public void insert(String hash, ForgeTokens.Grant grant) {
    if (grants.putIfAbsent(hash, grant) != null) {
      throw new IllegalStateException("a token hash stored twice");
    }
  }

  @Override
  public Optional<ForgeTokens.Grant> live(String hash, Instant now) {
    ForgeTokens.Grant grant = grants.get(hash);
    return grant == null || revoked.contains(hash) || !grant.expiresAt().isAfter(now)
        ? Optional.empty() : Optional.of(grant);
  }

  @Override
  public boolean revoke(String hash, Instant now) {
    return live(hash, now).isPresent() && revoked.add(hash);
  }
}
