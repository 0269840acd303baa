package dev.pushgate.sandbox;

import java.nio.file.Path;
import java.util.List;

/**
 * Another process of the host that holds a loan on the register until its standard input ends,
 * as a second {@code pushgate exec} would.
 */
final class LoanHolder {
  private LoanHolder() {}

  /**
   * Arguments: the register, the holder, and the directories it records as lent; none: it lends
   * what a run with no writable mount (plan mode) lends.
   */
  public static void main(String[] args) throws Exception {
    LoanRegister register = new LoanRegister(Path.of(args[0]));
    List<Path> roots = java.util.Arrays.stream(args).skip(2).map(Path::of).toList();
    try (AutoCloseable held = roots.isEmpty()
        ? OwnershipLoan.lend(roots, SandboxUser.NOBODY, register, args[1])
        : register.record(roots, args[1])) {
      System.out.println("held");
      System.out.flush();
      while (System.in.read() >= 0) {
        // hold until told to go
      }
    }
  }
}
