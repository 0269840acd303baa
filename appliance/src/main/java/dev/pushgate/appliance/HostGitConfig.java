package dev.pushgate.appliance;

import org.eclipse.jgit.lib.Config;
import org.eclipse.jgit.storage.file.FileBasedConfig;
import org.eclipse.jgit.util.FS;
import org.eclipse.jgit.util.SystemReader;

/**
 * Keeps the git configuration of the host's user and system ({@code ~/.gitconfig},
 * {@code /etc/gitconfig}) out of JGit in this process. The appliance's caches and its local forge
 * are configured in their own repositories; a host's {@code url.*.insteadOf},
 * {@code http.proxy} or {@code http.sslVerify} must not redirect or weaken their traffic. JGit
 * also checked those files for changes on every request that read a repository's configuration.
 * JGit's own file, which records measured file-system timestamp resolutions, is still read.
 */
final class HostGitConfig {
  private HostGitConfig() {}

  /** Installs the isolation once for the process; JGit's system reader is global. */
  static synchronized void ignore() {
    SystemReader current = SystemReader.getInstance();
    if (!(current instanceof Ignored)) {
      SystemReader.setInstance(new Ignored(current));
    }
  }

  private static final class Ignored extends SystemReader.Delegate {
    Ignored(SystemReader delegate) {
      super(delegate);
    }

    @Override
    public FileBasedConfig openUserConfig(Config parent, FS fs) {
      return empty(parent, fs);
    }

    @Override
    public FileBasedConfig openSystemConfig(Config parent, FS fs) {
      return empty(parent, fs);
    }
  }

  private static FileBasedConfig empty(Config parent, FS fs) {
    return new FileBasedConfig(parent, null, fs) {
      @Override
      public void load() {
        // nothing to read
      }

      @Override
      public boolean isOutdated() {
        return false;
      }

      @Override
      public void save() {
        // nothing to write
      }
    };
  }
}
