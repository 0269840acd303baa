package dev.pushgate.forge;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.transport.PushResult;
import org.eclipse.jgit.transport.RemoteRefUpdate;
import org.eclipse.jgit.transport.UsernamePasswordCredentialsProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pushes to different branches of one forge repository at once all land, also while the forge
 * compacts the repository (more than gc.autoPackLimit packs: one small pack per push).
 */
class ForgeConcurrentPushTest {
  private static final int PUSHERS = 8;
  private static final int PUSHES_EACH = 10;

  @TempDir Path dir;

  @Test
  void concurrentPushesToOtherBranchesNeverFailToLock() throws Exception {
    try (TestForge forge = new TestForge(dir)) {
      forge.create("acme/widget");
      try (FileRepository forgeRepo = new FileRepository(
          dir.resolve("forge/acme/widget.git").toFile())) {
        // Compact often, so that pushes land while it runs.
        forgeRepo.getConfig().setInt("gc", null, "autopacklimit", 4);
        forgeRepo.getConfig().save();
      }
      String url = forge.uri("/forge/acme/widget.git").toString();
      UsernamePasswordCredentialsProvider credentials = new UsernamePasswordCredentialsProvider(
          "x-access-token", forge.token("{\"contents\":\"write\"}", "widget"));
      ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
      List<ObjectId> lastPushed = new ArrayList<>();
      ExecutorService pool = Executors.newFixedThreadPool(PUSHERS);
      try {
        List<Future<ObjectId>> pushers = new ArrayList<>();
        for (int n = 0; n < PUSHERS; n++) {
          int pusher = n;
          pushers.add(pool.submit(() -> {
            try (Git git = Git.cloneRepository().setURI(url).setBare(false)
                .setDirectory(dir.resolve("clone" + pusher).toFile())
                .setCredentialsProvider(credentials).call()) {
              ObjectId last = null;
              for (int i = 0; i < PUSHES_EACH; i++) {
                RevCommit c = git.commit().setAllowEmpty(true)
                    .setMessage("pusher " + pusher + " push " + i).call();
                for (PushResult r : git.push().setCredentialsProvider(credentials)
                    .setRefSpecs(new org.eclipse.jgit.transport.RefSpec(
                        "HEAD:refs/heads/b" + pusher)).call()) {
                  for (RemoteRefUpdate u : r.getRemoteUpdates()) {
                    if (u.getStatus() != RemoteRefUpdate.Status.OK) {
                      failures.add(u.getRemoteName() + " " + u.getStatus() + " " + u.getMessage());
                    }
                  }
                }
                last = c;
              }
              return last;
            }
          }));
        }
        for (Future<ObjectId> f : pushers) {
          lastPushed.add(f.get());
        }
      } finally {
        pool.shutdownNow();
      }

      assertThat(failures).isEmpty();
      try (FileRepository forgeRepo = new FileRepository(
          dir.resolve("forge/acme/widget.git").toFile())) {
        for (int n = 0; n < PUSHERS; n++) {
          assertThat(forgeRepo.exactRef("refs/heads/b" + n).getObjectId())
              .as("b" + n).isEqualTo(lastPushed.get(n));
        }
        assertThat(forgeRepo.getObjectDatabase().getPacks().size())
            .as("packs after " + PUSHERS * PUSHES_EACH + " pushes: the forge compacts")
            .isLessThanOrEqualTo(4 + 2 + PUSHERS);
      }
    }
  }
}
