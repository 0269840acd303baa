package dev.pushgate.gateway;

import java.io.IOException;

/**
 * The one answer to a push that names an object it does not send and its run cannot reach
 * ({@link Reach}): as a command's new id, as what a sent object points to, as a thin pack's
 * delta base. An object nobody has and one only a refused or held push left in the cache answer
 * alike, in git's own words for it, with no id, type or size: the id of the first object found
 * missing, or the type JGit names (read from the cache), would tell which objects the cache
 * holds, and so test another run's refused work by a hashed guess.
 */
final class AbsentObjects extends IOException {
  static final String MESSAGE = "missing necessary objects (the push names an object it does not"
      + " send, which this repository's branches and tags do not reach; fetch, then push again)";

  AbsentObjects() {
    super(MESSAGE);
  }

  /** Stack-less: raised for every such push, named by this class alone. */
  @Override
  public synchronized Throwable fillInStackTrace() {
    return this;
  }
}
