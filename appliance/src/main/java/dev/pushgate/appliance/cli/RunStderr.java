package dev.pushgate.appliance.cli;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Standard error as {@code pushgate exec} and {@code pushgate launch} write it: the run's own
 * output as it arrives ({@link #print}), and pushgate's lines between ({@link #println}). A line of
 * pushgate's always begins a line of its own, though the run's output before it stopped mid-line:
 * a shell's {@code sh: 1: } written ahead of the rest of its message once began the line of a
 * violation, which a reader picking the lines that begin with {@code pushgate:} then missed.
 */
final class RunStderr extends PrintStream {
  private boolean midLine;

  RunStderr(OutputStream out) {
    super(out, true, StandardCharsets.UTF_8);
  }

  @Override
  public synchronized void print(String s) {
    String text = String.valueOf(s);
    super.print(text);
    if (!text.isEmpty()) {
      midLine = text.charAt(text.length() - 1) != '\n';
    }
  }

  @Override
  public synchronized void println(String line) {
    super.print((midLine ? "\n" : "") + line + "\n");
    midLine = false;
  }

  @Override
  public void println(Object x) {
    println(String.valueOf(x));
  }

  @Override
  public void println() {
    println("");
  }
}
