package dev.pushgate.appliance.cli;

import dev.pushgate.types.AuditEntry;
import dev.pushgate.types.UntrustedText;
import dev.pushgate.appliance.store.ChainedRecord;
import java.util.ArrayList;
import java.util.List;

/**
 * A run's audit records as a table, one line each, in the order they were written; each {@link
 * AuditEntry#asRead as read} (an API call written as a push record shows as an {@code api-call}).
 */
final class Timeline {
  private Timeline() {}

  static String table(List<ChainedRecord> records) {
    if (records.isEmpty()) {
      return "no audit record of this run\n";
    }
    String[] head = {"TIME", "RECORD", "TYPE", "WHAT", "DECISION", "DETAIL"};
    List<String[]> lines = new ArrayList<>();
    lines.add(head);
    for (ChainedRecord r : records) {
      AuditEntry e = r.entry().asRead();
      String[] cells = {Times.at(e.at()),
          String.valueOf(r.id()), e.type().id(), what(e), e.decision(), detail(e)};
      // Refs, commands and reasons come from the agent: none may redraw the table.
      for (int i = 0; i < cells.length; i++) {
        cells[i] = UntrustedText.visible(cells[i] == null ? "" : cells[i]);
      }
      lines.add(cells);
    }
    int[] width = new int[head.length];
    for (String[] l : lines) {
      for (int i = 0; i < l.length - 1; i++) {
        width[i] = Math.max(width[i], l[i].length());
      }
    }
    StringBuilder out = new StringBuilder();
    for (String[] l : lines) {
      StringBuilder s = new StringBuilder();
      for (int i = 0; i < l.length; i++) {
        s.append(i == l.length - 1 ? l[i] : String.format("%-" + width[i] + "s  ", l[i]));
      }
      out.append(s.toString().stripTrailing()).append('\n');
    }
    return out.toString();
  }

  /** What the record is about: the command, the ref updated, the token. */
  static String what(AuditEntry e) {
    return switch (e.type()) {
      case TOKEN_ISSUED, TOKEN_REVOKED ->
          e.kind() + " token " + e.subject() + " on " + e.repository();
      case PUSH, PUSH_OUTCOME -> shortRef(e.ref()) + " (" + e.repository() + ")";
      case APPROVAL_ASKED, APPROVAL_ANSWERED -> "question " + e.subject() + ": "
          + shortRef(e.ref());
      case COMMAND -> e.ref();
      case RUN_END_FINDING -> e.kind() + " " + e.ref();
      case API_CALL -> e.kind() + " " + e.ref() + " (" + e.subject() + ")";
    };
  }

  private static String detail(AuditEntry e) {
    return switch (e.type()) {
      case PUSH_OUTCOME -> e.outcome() + " after " + e.durationMillis() + " ms";
      case APPROVAL_ANSWERED -> join("by " + e.actor(), e.reason());
      case TOKEN_REVOKED -> "";
      default -> join(e.reason(), e.outcome());
    };
  }

  private static String join(String a, String b) {
    if (a == null || a.isEmpty()) {
      return b == null ? "" : b;
    }
    return b == null || b.isEmpty() ? a : a + "; " + b;
  }

  private static String shortRef(String ref) {
    return ref != null && ref.startsWith("refs/heads/") ? ref.substring(11) : ref;
  }
}
