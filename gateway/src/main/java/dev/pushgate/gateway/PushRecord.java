package dev.pushgate.gateway;

import java.time.Instant;
import java.util.Objects;

/**
 * One audited decision on one ref update. {@code code} is null when the update was allowed;
 * {@code outcome} says what happened upstream ({@code ok}, a rejection, or {@code not forwarded}).
 */
public record PushRecord(
    Instant at,
    String runId,
    String workspaceId,
    String repository,
    String ref,
    String oldId,
    String newId,
    String kind,
    Decision decision,
    String rule,
    RefusalCode code,
    String reason,
    Outcome outcome,
    long durationMillis) {

  /** What was decided; {@link #id} is the word the audit stores and shows. */
  public enum Decision {
    ALLOWED("allowed"),
    DENIED("denied"),
    /** Left to the person at the agent, by the command hook. */
    ASKED("asked");

    private final String id;

    Decision(String id) {
      this.id = id;
    }

    public String id() {
      return id;
    }

    /** The decision stored as {@code id}. */
    public static Decision of(String id) {
      for (Decision d : values()) {
        if (d.id.equals(id)) {
          return d;
        }
      }
      throw new IllegalArgumentException("not an audited decision: " + id);
    }
  }

  /**
   * What became of an update: one of the {@link Settled} states, or upstream's (or the
   * forward's) rejection in the words the person pushing was shown. {@link #text} is what the
   * audit stores and shows.
   */
  public sealed interface Outcome permits Outcome.Settled, Outcome.Rejected {
    Outcome OK = Settled.OK;
    Outcome PENDING = Settled.PENDING;
    Outcome NOT_FORWARDED = Settled.NOT_FORWARDED;
    Outcome NOT_RUN = Settled.NOT_RUN;

    String text();

    /** The outcome stored as {@code text}; null for null (a decision without an outcome). */
    static Outcome of(String text) {
      if (text == null) {
        return null;
      }
      for (Settled s : Settled.values()) {
        if (s.text.equals(text)) {
          return s;
        }
      }
      return new Rejected(text);
    }

    /** The outcomes the gateway names itself. */
    enum Settled implements Outcome {
      OK("ok"),
      /** Allowed and audited; upstream has not answered yet. */
      PENDING("pending"),
      NOT_FORWARDED("not forwarded"),
      /** A command the command hook refused. */
      NOT_RUN("not run");

      private final String text;

      Settled(String text) {
        this.text = text;
      }

      @Override
      public String text() {
        return text;
      }
    }

    /** Refused on the way upstream or by upstream itself. */
    record Rejected(String text) implements Outcome {
      public Rejected {
        Objects.requireNonNull(text, "text");
      }
    }
  }

  public PushRecord {
    Objects.requireNonNull(at, "at");
    Objects.requireNonNull(runId, "runId");
    Objects.requireNonNull(repository, "repository");
    Objects.requireNonNull(decision, "decision");
  }

  public boolean refused() {
    return code != null || outcome != Outcome.OK;
  }

  /** A record whose columns are set one by one ({@link Builder#build} checks them). */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Sets a {@link PushRecord}'s columns by name: a column passed by position is one slip from
   * another's place in the audit (and its hash). {@code durationMillis} is 0 unless set.
   */
  public static final class Builder {
    private Instant at;
    private String runId;
    private String workspaceId;
    private String repository;
    private String ref;
    private String oldId;
    private String newId;
    private String kind;
    private Decision decision;
    private String rule;
    private RefusalCode code;
    private String reason;
    private Outcome outcome;
    private long durationMillis;

    private Builder() {}

    public Builder at(Instant value) {
      at = value;
      return this;
    }

    public Builder runId(String value) {
      runId = value;
      return this;
    }

    public Builder workspaceId(String value) {
      workspaceId = value;
      return this;
    }

    public Builder repository(String value) {
      repository = value;
      return this;
    }

    public Builder ref(String value) {
      ref = value;
      return this;
    }

    public Builder oldId(String value) {
      oldId = value;
      return this;
    }

    public Builder newId(String value) {
      newId = value;
      return this;
    }

    public Builder kind(String value) {
      kind = value;
      return this;
    }

    public Builder decision(Decision value) {
      decision = value;
      return this;
    }

    public Builder rule(String value) {
      rule = value;
      return this;
    }

    public Builder code(RefusalCode value) {
      code = value;
      return this;
    }

    public Builder reason(String value) {
      reason = value;
      return this;
    }

    public Builder outcome(Outcome value) {
      outcome = value;
      return this;
    }

    public Builder durationMillis(long value) {
      durationMillis = value;
      return this;
    }

    public PushRecord build() {
      return new PushRecord(at, runId, workspaceId, repository, ref, oldId, newId, kind,
          decision, rule, code, reason, outcome, durationMillis);
    }
  }
}
