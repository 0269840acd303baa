package dev.pushgate.gateway;

/**
 * A request shed because its repository's cache is busy: too many requests wait for it already,
 * or this one waited its limit. Nothing was done; the message says to retry.
 */
final class RepositoryBusy extends Exception {
  private static final long serialVersionUID = 1L;

  RepositoryBusy(String message) {
    super(message);
  }
}
