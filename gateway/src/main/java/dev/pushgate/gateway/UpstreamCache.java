package dev.pushgate.gateway;

import dev.pushgate.broker.RepoSlug;
import dev.pushgate.broker.Secret;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.StoredConfig;
import org.eclipse.jgit.transport.RefSpec;
import org.eclipse.jgit.transport.UsernamePasswordCredentialsProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One bare repository per upstream repository, kept in step with upstream so that a client's thin
 * pack resolves and non-fast-forward updates are recognised. Only branches and tags are mirrored.
 */
final class UpstreamCache {
  private static final Logger log = LoggerFactory.getLogger(UpstreamCache.class);
  private static final List<RefSpec> MIRRORED =
      List.of(new RefSpec("+refs/heads/*:refs/heads/*"), new RefSpec("+refs/tags/*:refs/tags/*"));

  private final Path root;
  private final int timeoutSeconds;
  private final PushMetrics metrics;
  private final ConcurrentHashMap<String, ReentrantLock> locks = new ConcurrentHashMap<>();

  UpstreamCache(Path root, int timeoutSeconds, PushMetrics metrics) {
    this.root = root;
    this.timeoutSeconds = timeoutSeconds;
    this.metrics = metrics;
  }

  /** Opens the cache of {@code repo}, creating it when missing. The caller closes it. */
  Repository open(RepoSlug repo) throws IOException {
    Path dir = directoryOf(repo);
    ReentrantLock lock = lockOf(repo);
    lock.lock();
    try {
      if (!Files.isRegularFile(dir.resolve("HEAD"))) {
        Files.createDirectories(dir.getParent());
        try (Repository created = new FileRepository(dir.toFile())) {
          created.create(true);
          StoredConfig config = created.getConfig();
          // Objects received from a client stay unreachable until upstream accepts them; never
          // let a gc in the cache race a push that is being forwarded.
          config.setBoolean("gc", null, "auto", false);
          config.setInt("gc", null, "autopacklimit", 0);
          config.save();
        }
      }
    } finally {
      lock.unlock();
    }
    return new FileRepository(dir.toFile());
  }

  /** Fetches upstream's branches and tags into the cache, removing what upstream removed. */
  void sync(RepoSlug repo, String remoteUrl, Secret token) throws UpstreamException {
    long start = System.nanoTime();
    ReentrantLock lock = lockOf(repo);
    lock.lock();
    try {
      for (int attempt = 1; ; attempt++) {
        try (Repository cache = open(repo); Git git = Git.wrap(cache)) {
          git.fetch()
              .setRemote(remoteUrl)
              .setRefSpecs(MIRRORED)
              .setRemoveDeletedRefs(true)
              .setTimeout(timeoutSeconds)
              .setCredentialsProvider(
                  new UsernamePasswordCredentialsProvider("x-access-token", token.reveal()))
              .call();
          break;
        } catch (GitAPIException | IOException | RuntimeException e) {
          // A push being settled in the same cache can hold a ref lock for a moment: try again.
          if (attempt < 3 && mentionsLock(e)) {
            sleep(50L * attempt);
            continue;
          }
          metrics.onSync(java.time.Duration.ofNanos(System.nanoTime() - start), false);
          throw new UpstreamException("could not read " + repo + " upstream: " + e.getMessage(), e);
        }
      }
    } finally {
      lock.unlock();
    }
    metrics.onSync(java.time.Duration.ofNanos(System.nanoTime() - start), true);
    log.debug("synced cache of {} in {} ms", repo, (System.nanoTime() - start) / 1_000_000);
  }

  private static boolean mentionsLock(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      String m = t.getMessage();
      if (m != null && m.toLowerCase(Locale.ROOT).contains("lock")) {
        return true;
      }
    }
    return false;
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private ReentrantLock lockOf(RepoSlug repo) {
    return locks.computeIfAbsent(repo.key(), k -> new ReentrantLock());
  }

  private Path directoryOf(RepoSlug repo) {
    // RepoSlug forbids separators and dot segments, so this stays under root.
    return root.resolve(repo.owner().toLowerCase(Locale.ROOT))
        .resolve(repo.name().toLowerCase(Locale.ROOT) + ".git");
  }
}
