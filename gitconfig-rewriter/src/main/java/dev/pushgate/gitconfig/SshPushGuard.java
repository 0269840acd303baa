package dev.pushgate.gitconfig;

/**
 * The run's {@code core.sshCommand}. {@code insteadOf} compares URL prefixes byte for byte, so a
 * URL that spells the git host in a way no prefix lists ({@code deploy@GitHub.com:o/r}) would
 * reach the host over SSH, with whatever key the machine's SSH agent holds: a push unjudged, a
 * fetch around the gateway's cache and audit. git
 * hands the host to the SSH command after parsing the URL, so the guard compares it as SSH would
 * resolve it (user dropped, case ignored, brackets and a trailing dot removed) and refuses a
 * {@code git-receive-pack}, {@code git-upload-pack} or {@code git-upload-archive} to the host,
 * naming the URL that reaches the gateway. Everything else (other hosts) runs {@code ssh}
 * unchanged.
 */
final class SshPushGuard {
  private SshPushGuard() {}

  /** The shell snippet; git runs it as {@code sh -c '<snippet> "$@"'} with ssh's arguments. */
  static String command(GitHost host) {
    String names = host.host().equals(GitHost.GITHUB.host())
        ? host.host() + "|ssh." + host.host() : host.host();
    // the last argument is the remote command, the one before it [user@]host
    return "f() { h=; c=; for a; do h=$c; c=$a; done;"
        + " n=$(printf '%s' \"${h##*@}\" | tr -d '[]' | tr 'A-Z' 'a-z'); n=${n%.};"
        + " case \"$c\" in git-receive-pack*|git-upload-pack*|git-upload-archive*)"
        + " case \"$n\" in " + names + ")"
        + " p=${c#*\\'}; p=${p%\\'}; p=${p#/};"
        + " printf 'pushgate: this fetch or push of %s was not sent to the gateway: git rewrites only the"
        + " spellings of %s it was given, and this URL spells it otherwise. Use %s/%s instead,"
        + " where the run'\\''s rules judge it.\\n' \"$h:$p\" " + host.host() + " "
        + host.baseUrl() + " \"$p\" >&2; exit 128;; esac;; esac; exec ssh \"$@\"; }; f";
  }
}
