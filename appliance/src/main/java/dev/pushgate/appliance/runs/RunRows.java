package dev.pushgate.appliance.runs;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pushgate.appliance.store.Ledger;
import dev.pushgate.gateway.RunContext;
import dev.pushgate.policy.Mode;
import dev.pushgate.policy.RulesException;
import dev.pushgate.policy.WorkspaceRules;
import dev.pushgate.types.RepoSlug;
import java.io.IOException;
import java.util.List;

/** A run's ledger row read back: what the gateway judges it by, its rules; and written. */
final class RunRows {
  private static final ObjectMapper JSON = new ObjectMapper();

  private RunRows() {}

  static RunContext contextOf(Ledger.RunRow row, WorkspaceRules rules) {
    List<RepoSlug> attached;
    try {
      attached = List.of(JSON.readValue(row.attachedJson(), String[].class)).stream()
          .map(RepoSlug::parse).toList();
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("damaged run row " + row.id(), e);
    }
    return new RunContext(row.id(), row.workspaceId(), RepoSlug.parse(row.repository()),
        attached, rules.push(), rules.pushWorkflows(), rules.content(),
        Mode.fromId(row.mode()), RunBoundary.forBackend(row.backend()));
  }

  /** The rules the row recorded when the run started. */
  static WorkspaceRules rulesOf(Ledger.RunRow row) throws IOException, RulesException {
    return WorkspaceRules.fromJson(JSON.readTree(row.rulesJson()));
  }

  /** The attached repositories as the row keeps them. */
  static String attachedJson(List<RepoSlug> attached) {
    try {
      return JSON.writeValueAsString(attached.stream().map(RepoSlug::toString).toList());
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
