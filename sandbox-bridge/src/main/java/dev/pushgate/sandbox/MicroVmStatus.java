package dev.pushgate.sandbox;

/**
 * What the start-up probe found for the microvm backend: whether this host can boot the guest,
 * and what it found or why not, in words an operator can act on.
 *
 * @param available whether a microvm run or terminal can start here
 * @param detail what was found (KVM, the hypervisor, the guest's digest) when available, else
 *     the reason it is not, with what to do
 * @param guest the verified guest when available, else null
 */
public record MicroVmStatus(boolean available, String detail, MicroVmGuest guest) {
  public MicroVmStatus {
    if (detail == null || detail.isBlank()) {
      throw new IllegalArgumentException("a microvm probe result says what it found");
    }
    if (available != (guest != null)) {
      throw new IllegalArgumentException("an available microvm backend has a verified guest");
    }
  }

  /** Not available, for {@code reason}. */
  public static MicroVmStatus unavailable(String reason) {
    return new MicroVmStatus(false, reason, null);
  }

  /** The words the start-up line and {@code /readyz} use. */
  public String summary() {
    return available ? "microvm available: " + detail : "microvm unavailable: " + detail;
  }
}
