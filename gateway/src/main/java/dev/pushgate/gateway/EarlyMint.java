package dev.pushgate.gateway;

import dev.pushgate.policy.Decision;
import dev.pushgate.policy.PushRules;
import dev.pushgate.policy.UpdateKind;
import java.util.List;
import java.util.Optional;

/**
 * Whether a push's write token is worth minting while its pack arrives, from its command list
 * alone. Every mint is a call against the GitHub App's rate limit, and so is its revocation: a
 * request body of {@code 0000} (no command), a malformed list, or commands the rules only ask
 * about or deny mint nothing here. A push that turns out to be allowed after a question mints
 * its token then.
 */
final class EarlyMint {
  private EarlyMint() {}

  /** True when the list is well formed and the rules allow at least one command outright. */
  static boolean worthIt(PushRules rules, List<String> commandLines) {
    Optional<CommandList> list = CommandList.parse(commandLines);
    return list.isPresent() && list.get().commands().stream().anyMatch(c -> allowed(rules, c));
  }

  private static boolean allowed(PushRules rules, CommandList.Command c) {
    if (c.oldId().equals(c.newId())) {
      return false;
    }
    List<UpdateKind> kinds = c.creates() ? List.of(UpdateKind.CREATE)
        : c.deletes() ? List.of(UpdateKind.DELETE)
        : List.of(UpdateKind.UPDATE, UpdateKind.FORCE);
    return kinds.stream()
        .anyMatch(k -> rules.judge(c.ref(), k).decision() == Decision.ALLOW);
  }
}
