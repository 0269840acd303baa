package dev.pushgate.appliance.store;

import dev.pushgate.types.UntrustedText;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The storage type each audit column must hold (docs/audit.md). A hash is computed from a column
 * read back as a Java value, but the appliance finds records with SQL comparisons, and SQLite
 * lets a row keep a value of any type: a run id re-stored as a BLOB hashes alike yet no longer
 * equals the run's id, a time re-stored as TEXT sorts apart from every number. So the verifier
 * reads each value's storage type next to the value and calls any type the appliance does not
 * write a break. On PostgreSQL the column types already rule this out; the same check runs there
 * and finds the declared types.
 */
final class AuditStorage {
  /** Why a re-typed value is a break, appended to the message naming it. */
  static final String WHY = " (a value of another type hashes alike but escapes the appliance's"
      + " own lookups, such as the run's timeline)";

  /** The integer columns of {@code audit} and {@code audit_heads}; every other one is text. */
  private static final Set<String> INTEGERS =
      Set.of("id", "seq", "at", "duration_ms", "settles");

  /** The storage type names each kind is read as: SQLite's typeof and PostgreSQL's pg_typeof. */
  private static final Set<String> INTEGER_NAMES = Set.of("integer", "bigint");
  private static final Set<String> TEXT_NAMES = Set.of("text");

  private AuditStorage() {}

  /**
   * A select list with each column's storage type, in the order of {@code columns}: "null" for
   * no value.
   */
  static String typesOf(Database.Dialect dialect, List<String> columns) {
    StringBuilder out = new StringBuilder();
    for (String column : columns) {
      out.append(out.length() == 0 ? "" : ", ").append(dialect == Database.Dialect.SQLITE
          ? "typeof(" + column + ")"
          : "CASE WHEN " + column + " IS NULL THEN 'null' ELSE pg_typeof(" + column
              + ")::text END");
    }
    return out.toString();
  }

  /**
   * Why the current row of {@code rs} may not be trusted, or null: {@code columns} (named in a
   * message with {@code prefix}) are followed in the row by their {@link #typesOf}.
   */
  static String misstored(ResultSet rs, List<String> columns, String prefix)
      throws SQLException {
    for (int i = 0; i < columns.size(); i++) {
      String why = misstored(columns.get(i), prefix + columns.get(i),
          rs.getString(columns.size() + 1 + i));
      if (why != null) {
        return why;
      }
    }
    return null;
  }

  /**
   * Why {@code column} (named as {@code label} in a message) may not hold a value of storage type
   * {@code type}, or null when it may.
   */
  private static String misstored(String column, String label, String type) {
    String actual = type == null ? "null" : type.toLowerCase(Locale.ROOT);
    boolean integer = INTEGERS.contains(column);
    if (actual.equals("null") || (integer ? INTEGER_NAMES : TEXT_NAMES).contains(actual)) {
      return null;
    }
    return label + " stored as " + UntrustedText.printable(actual) + ", not " + (integer ? "integer" : "text") + WHY;
  }
}
