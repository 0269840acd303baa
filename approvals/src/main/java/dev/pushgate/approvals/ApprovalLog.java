package dev.pushgate.approvals;

/** Where questions and their ends are recorded. */
public interface ApprovalLog {
  void asked(Question q);

  void ended(Question q, Answer a);
}
