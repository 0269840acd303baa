package dev.pushgate.gateway;

import dev.pushgate.policy.PushRules;
import java.util.List;
import java.util.Optional;
import org.eclipse.jgit.lib.ObjectId;

/**
 * A push's command list, read once before its pack, with the rules' {@link Verdict} on each of
 * its commands, in order. Only a well-formed list is judged here; JGit answers anything else.
 */
record JudgedCommands(CommandList list, List<Verdict> verdicts) {
  JudgedCommands {
    verdicts = List.copyOf(verdicts);
    if (verdicts.size() != list.commands().size()) {
      throw new IllegalArgumentException("one verdict per command");
    }
  }

  /** The list judged by {@code rules} alone, when {@code commandLines} are well formed. */
  static Optional<JudgedCommands> read(PushRules rules, List<String> commandLines) {
    return read(rules::judge, commandLines);
  }

  /** The list judged by {@code rules}, when {@code commandLines} are well formed. */
  static Optional<JudgedCommands> read(Verdict.PushJudge rules, List<String> commandLines) {
    return CommandList.parse(commandLines).map(list -> new JudgedCommands(list,
        list.commands().stream()
            .map(c -> Verdict.of(rules, c.ref(), c.oldId(), c.newId()))
            .toList()));
  }

  boolean everyCommandDenied() {
    return verdicts.stream().allMatch(Verdict::deniedWhateverThePack);
  }

  boolean everyCommandAllowed() {
    return verdicts.stream().allMatch(Verdict::allowedWhateverThePack);
  }

  /** True when at least one command may be forwarded without a question: worth a token now. */
  boolean anyAllowedOutright() {
    return verdicts.stream().anyMatch(Verdict::mayBeAllowedOutright);
  }

  /** The verdict on {@code ref} moving from {@code oldId} to {@code newId}, if judged here. */
  Optional<Verdict> verdictOf(String ref, ObjectId oldId, ObjectId newId) {
    for (int i = 0; i < verdicts.size(); i++) {
      CommandList.Command c = list.commands().get(i);
      if (c.ref().equals(ref) && c.oldId().equals(oldId) && c.newId().equals(newId)) {
        return Optional.of(verdicts.get(i));
      }
    }
    return Optional.empty();
  }
}
