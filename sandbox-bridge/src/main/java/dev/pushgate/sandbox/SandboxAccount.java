package dev.pushgate.sandbox;

import java.util.List;

/**
 * The sandbox user as an account inside the sandbox: the host's {@code /etc/passwd} and {@code
 * /etc/group} with one line each for the sandbox user added, bound read-only over the guest's.
 * Without it a user id of the launch's own ({@link OwnSandboxUsers}) has no name, and everything
 * that looks the user up fails: {@code ssh-keygen} ("No user exists for uid …"), {@code whoami},
 * Python's {@code getpass.getuser()}. The files are the sandbox's alone; the host's stay as they
 * are.
 *
 * @param name the user's name inside: {@value #NAME}, or {@code agent-<uid>} when the host has an
 *     account of that name; the host's own name when the host has an account of that id (a
 *     sandbox user the operator named, such as {@code nobody})
 * @param passwd the whole {@code /etc/passwd} inside
 * @param group the whole {@code /etc/group} inside
 */
record SandboxAccount(String name, String passwd, String group) {
  static final String NAME = "agent";

  /**
   * @param home the user's home inside (the run's {@code HOME}); {@code /} when it has none
   */
  static SandboxAccount of(SandboxUser user, String home, String hostPasswd, String hostGroup) {
    String existing = nameOf(hostPasswd, 2, Integer.toString(user.uid()));
    String name = existing != null ? existing
        : nameOf(hostPasswd, 0, NAME) == null ? NAME : NAME + "-" + user.uid();
    String passwd = withNewline(hostPasswd);
    if (existing == null) {
      passwd += name + ":x:" + user.uid() + ":" + user.gid() + ":pushgate sandbox:"
          + (home == null || home.isEmpty() ? "/" : home) + ":/bin/sh\n";
    }
    String group = withNewline(hostGroup);
    if (nameOf(hostGroup, 2, Integer.toString(user.gid())) == null) {
      String groupName = nameOf(hostGroup, 0, name) == null ? name : NAME + "-" + user.gid();
      group += groupName + ":x:" + user.gid() + ":\n";
    }
    return new SandboxAccount(name, passwd, group);
  }

  /** The first field of the first line whose field {@code index} is {@code value}; else null. */
  private static String nameOf(String file, int index, String value) {
    for (String line : file.split("\n")) {
      List<String> fields = List.of(line.split(":", -1));
      if (fields.size() > index && fields.get(index).equals(value)) {
        return fields.get(0);
      }
    }
    return null;
  }

  private static String withNewline(String file) {
    return file.isEmpty() || file.endsWith("\n") ? file : file + "\n";
  }
}
