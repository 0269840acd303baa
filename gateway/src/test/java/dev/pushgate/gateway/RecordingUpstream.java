package dev.pushgate.gateway;

import dev.pushgate.types.RepoSlug;
import dev.pushgate.types.Secret;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** Upstream access to a repository at a fixed URL, recording every write token it leases. */
class RecordingUpstream implements UpstreamAccess {
  static final Secret READ_TOKEN = Secret.of("ghs_READtoken0000000000000000000000000");
  static final Secret WRITE_TOKEN = Secret.of("ghs_WRITEtoken000000000000000000000000");

  /** One lease handed out, and how often it was closed. */
  static final class Lease implements WriteTokenLease {
    final RepoSlug repo;
    final boolean workflows;
    final AtomicInteger closes = new AtomicInteger();

    Lease(RepoSlug repo, boolean workflows) {
      this.repo = repo;
      this.workflows = workflows;
    }

    @Override
    public Secret token() {
      return WRITE_TOKEN;
    }

    @Override
    public void close() {
      closes.incrementAndGet();
    }
  }

  String url;
  UpstreamException mintFailure;
  /** Every mint asked for, failed ones too. */
  int mintCalls;
  final List<Lease> leases = new ArrayList<>();

  RecordingUpstream(String url) {
    this.url = url;
  }

  @Override
  public String remoteUrl(RepoSlug repo) {
    return url;
  }

  @Override
  public Secret readToken(RunContext run, RepoSlug repo) {
    return READ_TOKEN;
  }

  @Override
  public synchronized WriteTokenLease mintWriteToken(RunContext run, RepoSlug repo,
      boolean workflows) throws UpstreamException {
    mintCalls++;
    if (mintFailure != null) {
      throw mintFailure;
    }
    Lease lease = new Lease(repo, workflows);
    leases.add(lease);
    return lease;
  }
}
