package dev.pushgate.approvals.webhooks;

import dev.pushgate.approvals.Answer;
import dev.pushgate.approvals.Question;
import java.util.Objects;

/** One thing a webhook is told: a question was asked ({@code answer} null), or it ended. */
public record WebhookEvent(Type type, Question question, Answer answer) {
  /** The events, by their name in a payload. */
  public enum Type {
    ASKED("approval.asked"),
    ENDED("approval.ended");

    private final String id;

    Type(String id) {
      this.id = id;
    }

    public String id() {
      return id;
    }
  }

  public WebhookEvent {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(question, "question");
    if ((type == Type.ENDED) != (answer != null)) {
      throw new IllegalArgumentException("an ended event has an answer, an asked one none");
    }
  }

  public static WebhookEvent asked(Question q) {
    return new WebhookEvent(Type.ASKED, q, null);
  }

  public static WebhookEvent ended(Question q, Answer a) {
    return new WebhookEvent(Type.ENDED, q, a);
  }
}
