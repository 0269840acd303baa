package dev.pushgate.appliance.store;

/** The audit chain tests on SQLite files. */
class AuditChainSqliteTest extends AuditChainContract {
  private int stores;

  @Override
  String freshStore() {
    return tmp.resolve("audit-" + (stores++) + ".db").toString();
  }
}
