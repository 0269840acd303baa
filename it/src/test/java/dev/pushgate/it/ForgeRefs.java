package dev.pushgate.it;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.RunningAppliance;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;

/** The refs of a local forge repository, read from disk: what upstream really holds. */
final class ForgeRefs {
  private ForgeRefs() {}

  static Map<String, ObjectId> of(Path bareRepo) throws Exception {
    try (Repository r = new FileRepository(bareRepo.toFile())) {
      Map<String, ObjectId> refs = new TreeMap<>();
      for (Ref ref : r.getRefDatabase().getRefs()) {
        if (!ref.isSymbolic()) {
          refs.put(ref.getName(), ref.getObjectId());
        }
      }
      return refs;
    }
  }

  static Map<String, ObjectId> of(RunningAppliance app, String repo) throws Exception {
    return of(app.forgeRepo(repo));
  }

  static ObjectId ref(RunningAppliance app, String repo, String ref) throws Exception {
    return of(app, repo).get(ref);
  }

  /** The git environment of a run, from the control API's answer. */
  static Map<String, String> env(JsonNode run) {
    return Map.of("GIT_CONFIG_GLOBAL", run.get("env").get("GIT_CONFIG_GLOBAL").asText(),
        "GH_TOKEN", run.get("env").get("GH_TOKEN").asText());
  }

  /** The run's gateway credential (what its git config sends as Bearer). */
  static String credential(JsonNode run) {
    return run.get("env").get("PUSHGATE_RUN_TOKEN").asText();
  }
}
