package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.policy.ContentRules;
import dev.pushgate.types.RepoSlug;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.internal.storage.file.GC;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.transport.ReceiveCommand;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A blob above a reader's stream threshold is streamed from the cache's pack, not inflated whole
 * into the heap, through every reader a push reads the cache with; and git's binary test reads
 * its 8000 bytes of a blob, not the blob.
 */
class BlobsReadStreamedTest {
  private static final RepoSlug REPO = RepoSlug.parse("acme/widget");
  private static final int MIB = 1 << 20;

  @TempDir Path dir;

  @Test
  void aReaderOfAPushsViewOfTheCacheStreamsABlobAboveItsThreshold() throws Exception {
    CacheRepositories repositories = new CacheRepositories(dir.resolve("cache"));
    try (Repository cache = repositories.open(REPO)) {
      RevCommit c = packed(cache, Map.of("big.log", "x".repeat(2 * MIB)));
      ObjectId blob = TreeWalk.forPath(cache, "big.log", c.getTree()).getObjectId(0);
      ReceivingCache view = new ReceivingCache((CacheRepository) cache, PackCopy.NONE);

      try (ObjectReader reader = view.newObjectReader()) {
        reader.setStreamFileThreshold(MIB);
        assertThat(reader.getStreamFileThreshold()).isEqualTo(MIB);
        assertThat(reader.open(blob).isLarge()).as("streamed, not loaded whole").isTrue();
        reader.setStreamFileThreshold(4 * MIB);
        assertThat(reader.open(blob).isLarge()).isFalse();
      }
      try (ObjectReader reader = CheckedOpens.of(view.newObjectReader(), id -> { })) {
        reader.setStreamFileThreshold(MIB);
        assertThat(reader.getStreamFileThreshold()).isEqualTo(MIB);
        assertThat(reader.open(blob).isLarge()).as("streamed, not loaded whole").isTrue();
      }
    }
  }

  @Test
  void theBinaryTestOfAPushsBlobsInflatesItsProbeNotTheBlobs() throws Exception {
    CacheRepositories repositories = new CacheRepositories(dir.resolve("cache"));
    try (Repository cache = repositories.open(REPO)) {
      Map<String, String> files = new HashMap<>();
      for (int i = 0; i < 10; i++) { // 9 MiB in all, each under the judge's stream threshold
        files.put("data/" + i + ".bin", "\0" + Integer.toString(i).repeat(900 * 1024));
      }
      RevCommit c = packed(cache, files);
      ReceiveCommand cmd = new ReceiveCommand(ObjectId.zeroId(), c, "refs/heads/data");
      ReceivingCache view = new ReceivingCache((CacheRepository) cache, PackCopy.NONE);
      judge(view, cmd); // the classes loaded and the scanner built, outside the measure

      com.sun.management.ThreadMXBean threads =
          (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
      long before = threads.getCurrentThreadAllocatedBytes();
      List<ContentFinding> found = judge(view, cmd);
      long allocated = threads.getCurrentThreadAllocatedBytes() - before;

      assertThat(found).as("binary files are not scanned for secrets").isEmpty();
      assertThat(allocated).as("bytes allocated to judge 9 MiB of binary files")
          .isLessThan(2L * MIB);
    }
  }

  private static List<ContentFinding> judge(Repository view, ReceiveCommand cmd)
      throws Exception {
    try (ContentJudge judge = new ContentJudge(view, ContentRules.DEFAULT,
        SecretScanner.standard())) {
      return judge.findings(cmd, List.of());
    }
  }

  /** A commit of {@code files} whose objects are in a pack, as a push's are in the cache. */
  private static RevCommit packed(Repository cache, Map<String, String> files) throws Exception {
    RevCommit c = TestRepos.commit(cache, "files", files);
    TestRepos.setRef(cache, "refs/heads/main", c);
    new GC((FileRepository) cache).gc().get();
    return c;
  }
}
