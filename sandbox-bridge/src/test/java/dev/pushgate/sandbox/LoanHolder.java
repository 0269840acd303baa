package dev.pushgate.sandbox;

import java.nio.file.Path;
import java.util.List;

/**
 * Another process of the host that holds a loan on the register until its standard input ends,
 * as a second {@code pushgate exec} would.
 */
final class LoanHolder {
  private LoanHolder() {}

  public static void main(String[] args) throws Exception {
    try (LoanRegister.Entry entry =
        new LoanRegister(Path.of(args[0])).record(List.of(Path.of(args[1])), args[2])) {
      System.out.println("held");
      System.out.flush();
      while (System.in.read() >= 0) {
        // hold until told to go
      }
    }
  }
}
