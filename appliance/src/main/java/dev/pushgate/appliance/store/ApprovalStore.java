package dev.pushgate.appliance.store;

import dev.pushgate.approvals.Answer;
import dev.pushgate.approvals.ApprovalLog;
import dev.pushgate.approvals.Question;
import dev.pushgate.types.AuditEntry;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Every question asked of an approver, its answer, who gave it, or its timeout. */
public final class ApprovalStore implements ApprovalLog {
  private static final Logger log = LoggerFactory.getLogger(ApprovalStore.class);
  private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
      new com.fasterxml.jackson.databind.ObjectMapper();

  private final Database db;
  private final Clock clock;
  /** Where questions and answers are audited; null for tests, which audit none. */
  private final AuditChain audit;

  public ApprovalStore(Database db) {
    this(db, Clock.systemUTC());
  }

  public ApprovalStore(Database db, Clock clock) {
    this(db, clock, null);
  }

  /** Questions and their ends, each also chained in {@code audit} in the same transaction. */
  public ApprovalStore(AuditChain audit, Clock clock) {
    this(audit.database(), clock, audit);
  }

  private ApprovalStore(Database db, Clock clock, AuditChain audit) {
    this.db = db;
    this.clock = clock;
    this.audit = audit;
  }

  /** Runs {@code work}, and appends its audit record when there is an audit. */
  private void write(Database.Work<Integer> work, AuditEntry entry) throws SQLException {
    if (audit == null) {
      db.with(work);
      return;
    }
    audit.append((c, chain) -> {
      work.run(c);
      return chain.append(entry);
    });
  }

  /**
   * An audit record of {@code type} about the question: its run, repository and update, and its
   * ref or, for a command question, the command line; its id the subject.
   */
  private static AuditEntry.Builder about(AuditEntry.Type type, Question q) {
    return AuditEntry.builder(type).runId(q.runId()).workspaceId(q.workspaceId())
        .repository(q.repository() == null ? "" : q.repository())
        .ref(q.command() != null ? q.command() : q.ref()).oldId(q.oldId()).newId(q.newId())
        .kind(q.kind() != null ? q.kind() : q.action()).subject(q.id());
  }

  @Override
  public void asked(Question q) {
    try {
      write(c -> {
        try (PreparedStatement ps = c.prepareStatement(
            "INSERT INTO approvals(id, action, run_id, workspace_id, repository, ref, kind,"
                + " old_id, new_id, command, rule, reason, asked_at, host, deadline, commits)"
                + " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")) {
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
          // Which appliance holds the question, and what an approver on another one is shown.
          ps.setString(14, audit == null ? null : audit.host());
          if (q.deadline() == null) {
            ps.setNull(15, java.sql.Types.BIGINT);
          } else {
            ps.setLong(15, q.deadline().toEpochMilli());
          }
          ps.setString(16, commitsJson(q));
          return ps.executeUpdate();
        }
      }, about(AuditEntry.Type.APPROVAL_ASKED, q).at(q.askedAt()).decision("asked")
          .rule(q.rule()).reason(q.reason()).build());
    } catch (SQLException e) {
      log.error("could not record approval question {}", q.id(), e);
    }
  }

  private static String commitsJson(Question q) {
    try {
      return JSON.writeValueAsString(q.commits());
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void ended(Question q, Answer a) {
    Instant now = clock.instant();
    try {
      write(c -> {
        try (PreparedStatement ps = c.prepareStatement(
            "UPDATE approvals SET ended_at = ?, outcome = ?, answered_by = ?, answer_reason = ?"
                + " WHERE id = ?")) {
          ps.setLong(1, now.toEpochMilli());
          ps.setString(2, a.outcome().id());
          ps.setString(3, a.by());
          ps.setString(4, a.reason());
          ps.setString(5, q.id());
          return ps.executeUpdate();
        }
      }, about(AuditEntry.Type.APPROVAL_ANSWERED, q).at(now).decision(a.outcome().id())
          .code(a.refusalCode() == null ? null : a.refusalCode().name()).reason(a.reason())
          .actor(a.by()).build());
    } catch (SQLException e) {
      log.error("could not record the end of approval question {}", q.id(), e);
    }
  }
}
