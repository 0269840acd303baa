package dev.pushgate.bench;

import dev.pushgate.testkit.GitRun;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** One round of pushes started at the same moment, and the round's wall time. */
record PushRound(List<GitRun.Result> results, double wallMs) {

  /** Commits in each worktree (not timed), then pushes them all at once on {@code pool}. */
  static PushRound of(ExecutorService pool, List<Worktree> workers) throws Exception {
    // commits first, four at a time, not timed
    List<Future<?>> prep = new ArrayList<>();
    ExecutorService committers = Executors.newFixedThreadPool(4);
    try {
      for (Worktree w : workers) {
        prep.add(committers.submit(() -> {
          w.commit();
          return null;
        }));
      }
      for (Future<?> f : prep) {
        f.get();
      }
    } finally {
      committers.shutdown();
    }
    CountDownLatch ready = new CountDownLatch(workers.size());
    CountDownLatch go = new CountDownLatch(1);
    List<Future<GitRun.Result>> pushes = new ArrayList<>();
    for (Worktree w : workers) {
      pushes.add(pool.submit(() -> {
        ready.countDown();
        go.await();
        return w.push();
      }));
    }
    ready.await();
    long start = System.nanoTime();
    go.countDown();
    List<GitRun.Result> results = new ArrayList<>();
    for (Future<GitRun.Result> f : pushes) {
      results.add(f.get());
    }
    return new PushRound(results, (System.nanoTime() - start) / 1e6);
  }
}
