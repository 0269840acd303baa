package dev.pushgate.sandbox;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A trial boot of the guest, once at start: the guest runs {@code true} and reports its exit
 * status. Opening {@code /dev/kvm} proves little (a host's KVM may boot only some kernels: under
 * {@code kvm_pvm} a stock kernel hangs before its first line), so the probe calls the backend
 * available only when a guest really booted here, and says how long it took.
 */
final class MicroVmTrial {
  /** How long a trial may take before the host counts as unable to boot the guest. */
  static final Duration DEADLINE = Duration.ofSeconds(20);

  /** The host's KVM is PVM's when this module is loaded. */
  static final Path PVM_MODULE = Path.of("/sys/module/kvm_pvm");

  private MicroVmTrial() {}

  /** Null and the boot's duration when the guest booted and ran {@code true}, else why not. */
  record Outcome(String problem, Duration took) {}

  static Outcome boot(MicroVmGuest guest, Path pvmModule) {
    long start = System.nanoTime();
    Path dir = null;
    Process p = null;
    try {
      dir = Files.createTempDirectory("pushgate-microvm-trial-");
      Path meta = Files.createDirectory(dir.resolve("meta"));
      MicroVmMeta.write(meta, new MicroVmMeta(List.of(), List.of(), List.of(), List.of(),
          65534, "/nonexistent", "", List.of("true"), "/"));
      Path exit = dir.resolve("exit");
      List<String> argv = MicroVmArgv.build(guest,
          List.of(new MicroVmArgv.Share("meta", meta, true)), List.of(), exit);
      p = new ProcessBuilder(argv).redirectErrorStream(true)
          .redirectOutput(dir.resolve("console").toFile())
          .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
      boolean ended = p.waitFor(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      String status = Files.exists(exit) ? Files.readString(exit, StandardCharsets.UTF_8).strip()
          : "";
      if (ended && status.equals("0")) {
        return new Outcome(null, took);
      }
      String console = firstLine(dir.resolve("console"));
      String why = !ended
          ? "the guest did not boot under KVM within " + DEADLINE.toSeconds() + " s"
          : "the trial boot of the guest failed (qemu exit " + p.exitValue() + ")"
              + (console.isEmpty() ? "" : ": " + console);
      if (Files.isDirectory(pvmModule)) {
        why += "; this host's KVM is kvm_pvm, which boots only kernels built as PVM guests, and"
            + " Debian's kernel is not one: this host cannot run the microvm backend";
      }
      return new Outcome(why, took);
    } catch (IOException | RuntimeException e) {
      return new Outcome("the trial boot of the guest could not start: " + e.getMessage(),
          Duration.ofNanos(System.nanoTime() - start));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Outcome("the trial boot was interrupted", Duration.ZERO);
    } finally {
      if (p != null && p.isAlive()) {
        p.destroyForcibly();
        try {
          p.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      if (dir != null) {
        try {
          FileTrees.delete(dir);
        } catch (IOException e) {
          // a temporary directory of a few bytes; the system's cleaner takes it
        }
      }
    }
  }

  private static String firstLine(Path file) throws IOException {
    if (!Files.exists(file)) {
      return "";
    }
    String text = Files.readString(file, StandardCharsets.ISO_8859_1).strip();
    int nl = text.indexOf('\n');
    return dev.pushgate.types.UntrustedText.printable(nl < 0 ? text : text.substring(0, nl));
  }
}
