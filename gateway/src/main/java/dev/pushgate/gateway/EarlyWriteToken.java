package dev.pushgate.gateway;

import dev.pushgate.broker.RepoSlug;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A push's write token, minted while its pack is still being received rather than after it has
 * been judged: minting is a round trip to GitHub that otherwise sits on every forward's critical
 * path. It is still one token per push, revoked when the push is answered. Only the push it was
 * minted for may take it; when that push forwards nothing, or needs a token with the
 * {@code workflows} permission instead, it is revoked unused.
 */
final class EarlyWriteToken {
  private final CompletableFuture<WriteTokenLease> minting;
  private final AtomicBoolean taken = new AtomicBoolean();

  private EarlyWriteToken(CompletableFuture<WriteTokenLease> minting) {
    this.minting = minting;
  }

  /** Starts minting a token for one push to {@code repo}, without the workflows permission. */
  static EarlyWriteToken mint(UpstreamAccess upstream, RunContext run, RepoSlug repo,
      Executor executor) {
    return new EarlyWriteToken(CompletableFuture.supplyAsync(() -> {
      try {
        return upstream.mintWriteToken(run, repo, false);
      } catch (UpstreamException e) {
        throw new CompletionException(e);
      }
    }, executor));
  }

  /** The token, waiting for the mint if it is still under way; once only. */
  WriteTokenLease take() throws UpstreamException {
    if (!taken.compareAndSet(false, true)) {
      throw new IllegalStateException("the early write token was taken already");
    }
    try {
      return minting.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UpstreamException("interrupted while the write token was minted", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UpstreamException u) {
        throw u;
      }
      throw new UpstreamException("the write token could not be minted: "
          + e.getCause().getClass().getSimpleName(), e.getCause());
    }
  }

  /** Revokes the token unless the push took it, as soon as the mint is done. */
  void releaseIfUnused() {
    if (taken.compareAndSet(false, true)) {
      minting.thenAccept(WriteTokenLease::close);
    }
  }
}
