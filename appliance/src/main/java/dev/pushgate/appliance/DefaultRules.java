package dev.pushgate.appliance;

import dev.pushgate.policy.RulesException;
import dev.pushgate.policy.WorkspaceRules;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The workspace rules a run gets when its request brings none, and their JSON for the ledger. */
public record DefaultRules(WorkspaceRules rules, String json) {
  public static final DefaultRules NONE = new DefaultRules(WorkspaceRules.DEFAULT, "{}");

  /** Reads a rules file; a bad one is refused whole, with its line and the problem. */
  public static DefaultRules read(Path file) throws IOException {
    if (!Files.isRegularFile(file)) {
      throw new IllegalArgumentException("the rules file " + file + " does not exist");
    }
    try {
      WorkspaceRules rules = WorkspaceRules.parse(Files.readString(file));
      return new DefaultRules(rules, rules.toJson().toString());
    } catch (RulesException e) {
      throw new IllegalArgumentException(file + ": " + e.getMessage());
    }
  }
}
