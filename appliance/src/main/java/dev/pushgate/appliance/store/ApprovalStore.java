package dev.pushgate.appliance.store;

import dev.pushgate.appliance.approvals.Answer;
import dev.pushgate.appliance.approvals.ApprovalLog;
import dev.pushgate.appliance.approvals.Question;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Every question asked of an approver, its answer, who gave it, or its timeout. */
public final class ApprovalStore implements ApprovalLog {
  private static final Logger log = LoggerFactory.getLogger(ApprovalStore.class);

  private final Database db;
  private final Clock clock;

  public ApprovalStore(Database db) {
    this(db, Clock.systemUTC());
  }

  public ApprovalStore(Database db, Clock clock) {
    this.db = db;
    this.clock = clock;
  }

  @Override
  public void asked(Question q) {
    try {
      db.with(c -> {
        try (PreparedStatement ps = c.prepareStatement(
            "INSERT INTO approvals(id, action, run_id, workspace_id, repository, ref, kind,"
                + " old_id, new_id, command, rule, reason, asked_at)"
                + " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)")) {
          ps.setString(1, q.id());
          ps.setString(2, q.action());
          ps.setString(3, q.runId());
          ps.setString(4, q.workspaceId());
          ps.setString(5, q.repository());
          ps.setString(6, q.ref());
          ps.setString(7, q.kind());
          ps.setString(8, q.oldId());
          ps.setString(9, q.newId());
          ps.setString(10, q.command());
          ps.setString(11, q.rule());
          ps.setString(12, q.reason());
          ps.setLong(13, q.askedAt().toEpochMilli());
          return ps.executeUpdate();
        }
      });
    } catch (SQLException e) {
      log.error("could not record approval question {}", q.id(), e);
    }
  }

  @Override
  public void ended(Question q, Answer a) {
    try {
      db.with(c -> {
        try (PreparedStatement ps = c.prepareStatement(
            "UPDATE approvals SET ended_at = ?, outcome = ?, answered_by = ?, answer_reason = ?"
                + " WHERE id = ?")) {
          ps.setLong(1, clock.millis());
          ps.setString(2, a.outcome().id());
          ps.setString(3, a.by());
          ps.setString(4, a.reason());
          ps.setString(5, q.id());
          return ps.executeUpdate();
        }
      });
    } catch (SQLException e) {
      log.error("could not record the end of approval question {}", q.id(), e);
    }
  }
}
