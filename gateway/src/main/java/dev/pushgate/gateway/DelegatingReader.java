package dev.pushgate.gateway;

import org.eclipse.jgit.lib.ObjectReader;

/**
 * JGit's {@link ObjectReader.Filter}, with the size above which a blob is streamed rather than
 * loaded whole its delegate's. JGit's filter keeps that size in a field of its own that no
 * delegate reads: a reader asked to stream the blobs above 1 MiB through it loaded one of 2 MiB
 * whole, and the push's judge read every blob back whole for git's 8000-byte binary test.
 */
abstract class DelegatingReader extends ObjectReader.Filter {
  @Override
  public void setStreamFileThreshold(int threshold) {
    delegate().setStreamFileThreshold(threshold);
  }

  @Override
  public int getStreamFileThreshold() {
    return delegate().getStreamFileThreshold();
  }
}
