package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lending a run's writable mounts to the sandbox user and giving them back, as root (as CI runs):
 * every owner comes back whatever the run or a second launch did.
 */
class OwnershipLoanTest {
  private static final SandboxUser NOBODY = SandboxUser.NOBODY;

  @TempDir Path tmp;
  private Path work;
  private LoanRegister register;

  @BeforeEach
  void layout() throws Exception {
    Assumptions.assumeTrue(LocalLauncher.currentUid() == 0, "lending needs root");
    work = Files.createDirectories(tmp.resolve("wd/.git"));
    work = work.getParent().toRealPath();
    Files.writeString(work.resolve(".git/config"), "[core]\n");
    register = new LoanRegister(tmp.resolve("run/loans"));
  }

  @Test
  void aTreeAlreadyLentIsNotLentAgainAndKeepsItsOwnerWhenBothEnd() throws Exception {
    OwnershipLoan first = OwnershipLoan.lend(List.of(work), NOBODY, register, "run run_a (pid 1)");
    assertThat(uid(work.resolve(".git/config"))).isEqualTo(65534);

    assertThatThrownBy(() -> OwnershipLoan.lend(List.of(work), NOBODY, register, "run run_b"))
        .isInstanceOf(SandboxLaunchException.class)
        .hasMessage("not launched: " + work + " is already lent to the sandbox user by run run_a"
            + " (pid 1); a directory is lent to one run at a time");
    assertThatThrownBy(() -> OwnershipLoan.lend(List.of(work.resolve(".git")), NOBODY, register,
        "run run_b"))
        .hasMessageContaining(work.resolve(".git") + " (inside " + work + ") is already lent");
    assertThatThrownBy(() -> OwnershipLoan.lend(List.of(work.getParent()), NOBODY, register,
        "run run_b"))
        .hasMessageContaining("is already lent to the sandbox user by run run_a (pid 1)");
    // The refused launches changed nothing.
    assertThat(uid(work.resolve(".git/config"))).isEqualTo(65534);

    first.close();
    assertThat(uid(work)).isZero();
    assertThat(uid(work.resolve(".git"))).isZero();
    assertThat(uid(work.resolve(".git/config"))).isZero();
    // Ended, the loan is off the register.
    OwnershipLoan.lend(List.of(work), NOBODY, register, "run run_c").close();
    assertThat(uid(work.resolve(".git/config"))).isZero();
  }

  @Test
  void aLoanOfAnotherProcessRefusesTheLaunchUntilThatProcessIsGone() throws Exception {
    Process other = holder("run run_other (pid 4242)", work);
    try {
      assertThatThrownBy(() -> OwnershipLoan.lend(List.of(work), NOBODY, register, "run run_b"))
          .isInstanceOf(SandboxLaunchException.class)
          .hasMessageContaining(work + " is already lent to the sandbox user by run run_other"
              + " (pid 4242)");
      assertThat(uid(work)).isZero();
    } finally {
      // Killed as a crash would: its lock dies with it.
      other.destroyForcibly();
      assertThat(other.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }
    lendsAndGivesBackLeavingNoLoan();
  }

  /**
   * CI: a run in plan mode (no writable mount) put a loan naming no directory on the register,
   * which every other process read as a loan of everything ("inside /"): no other run on the host
   * could launch while it lasted. A run that lends nothing records nothing.
   */
  @Test
  void aRunWithNoWritableMountLendsNothingAndKeepsNoOtherRunOut() throws Exception {
    Process planMode = holder("run run_plan (pid 4343)");
    try {
      lendsAndGivesBackLeavingNoLoan();
    } finally {
      planMode.destroyForcibly();
      assertThat(planMode.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }
    assertThatThrownBy(() -> register.record(List.of(), "run run_c"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /** The work tree lent, then given back; no loan file is left on the register. */
  private void lendsAndGivesBackLeavingNoLoan() throws Exception {
    OwnershipLoan loan = OwnershipLoan.lend(List.of(work), NOBODY, register, "run run_b");
    assertThat(uid(work)).isEqualTo(65534);
    loan.close();
    assertThat(uid(work)).isZero();
    try (var files = Files.list(tmp.resolve("run/loans"))) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactly("register.lock");
    }
  }

  /** Another process lending {@code roots} as {@code holder}, once it says it holds them. */
  private Process holder(String holder, Path... roots) throws Exception {
    List<String> command = new java.util.ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), LoanHolder.class.getName(),
        tmp.resolve("run/loans").toString(), holder));
    for (Path root : roots) {
      command.add(root.toString());
    }
    Process other = new ProcessBuilder(command).redirectErrorStream(true).start();
    BufferedReader out = new BufferedReader(
        new InputStreamReader(other.getInputStream(), StandardCharsets.UTF_8));
    assertThat(out.readLine()).isEqualTo("held");
    return other;
  }

  @Test
  void whatTheSandboxUserHeldBeforeTheLoanGoesToTheMountsOwner() throws Exception {
    Path planted = Files.writeString(work.resolve(".git/hooks-left"), "x");
    OwnershipLoan.chown(planted, 65534, 65534);
    OwnershipLoan.chown(work.resolve(".git"), 0, 65534);
    OwnershipLoan.lend(List.of(work), NOBODY, register, "run run_a").close();
    assertThat(uid(planted)).isZero();
    assertThat(gid(planted)).isZero();
    assertThat(gid(work.resolve(".git"))).isZero();
  }

  @Test
  void aMountThatBelongsToTheSandboxUserIsNotLent() throws Exception {
    OwnershipLoan.chown(work, 65534, 65534);
    assertThatThrownBy(() -> OwnershipLoan.lend(List.of(work), NOBODY, register, "run run_a"))
        .isInstanceOf(SandboxLaunchException.class)
        .hasMessage("not launched: " + work + " belongs to the sandbox user (65534:65534), so"
            + " nobody is left to give it back to after the run")
        .satisfies(e -> assertThat(((SandboxLaunchException) e).waysOut())
            .anyMatch(w -> w.contains("chown -R OWNER:GROUP " + work)));
    assertThat(uid(work.resolve(".git/config"))).isZero();
    // Refused, it is not on the register either.
    OwnershipLoan.chown(work, 0, 0);
    OwnershipLoan.lend(List.of(work), NOBODY, register, "run run_b").close();
  }

  @Test
  void aHardLinkToAFileOutsideTheTreeIsNeitherLentNorGivenBack() throws Exception {
    Path outside = Files.writeString(tmp.resolve("outside-secret"), "root's\n");
    OwnershipLoan.chown(outside, 1234, 1234);
    Files.createLink(work.resolve("linked-before"), outside);
    Path inside = Files.writeString(work.resolve("inside"), "both links inside\n");
    Files.createLink(work.resolve(".git/inside-too"), inside);
    OwnershipLoan.chown(inside, 1234, 1234);

    OwnershipLoan loan = OwnershipLoan.lend(List.of(work), NOBODY, register, "run run_a");
    assertThat(uid(outside)).isEqualTo(1234);
    assertThat(uid(inside)).isEqualTo(65534);

    // What the run (or a process as the sandbox user) links in before the give-back.
    Path later = Files.writeString(tmp.resolve("outside-later"), "x");
    OwnershipLoan.chown(later, 4321, 4321);
    Files.createLink(work.resolve("linked-during"), later);
    Path target = Files.writeString(tmp.resolve("outside-target"), "x");
    OwnershipLoan.chown(target, 4321, 4321);
    Files.createSymbolicLink(work.resolve("symlink"), target);
    OwnershipLoan.chown(work.resolve("symlink"), 65534, 65534);
    loan.close();

    assertThat(uid(outside)).isEqualTo(1234);
    assertThat(uid(later)).isEqualTo(4321);
    assertThat(uid(target)).isEqualTo(4321);
    assertThat(uid(work.resolve("symlink"))).isZero();
    assertThat(uid(inside)).isEqualTo(1234);
    assertThat(gid(inside)).isEqualTo(1234);
  }

  @Test
  void aMountInsideAnotherOfTheSameLoanKeepsItsOwners() throws Exception {
    Path sub = Files.createDirectories(work.resolve("state"));
    Path file = Files.writeString(sub.resolve("f"), "x");
    OwnershipLoan.chown(file, 1234, 1234);
    OwnershipLoan loan = OwnershipLoan.lend(List.of(work, sub), NOBODY, register, "run run_a");
    assertThat(uid(file)).isEqualTo(65534);
    loan.close();
    assertThat(uid(file)).isEqualTo(1234);
  }

  @Test
  void rightsForOthersThatTheRunAddedAreTakenBackWithTheOwnership() throws Exception {
    Path git = work.resolve(".git");
    Files.setPosixFilePermissions(git, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path script = Files.writeString(work.resolve("build.sh"), "true\n");
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rw-r--r--"));
    Path shared = Files.writeString(work.resolve("shared.txt"), "x");
    Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rw-rw-rw-"));
    OwnershipLoan loan = OwnershipLoan.lend(List.of(work), NOBODY, register, "run run_a");

    // What the run does while it owns the tree.
    Files.setPosixFilePermissions(git, PosixFilePermissions.fromString("rwxrwxrwx"));
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxrwxr-x"));
    Path created = Files.writeString(work.resolve("created.txt"), "x");
    Files.setPosixFilePermissions(created, PosixFilePermissions.fromString("rw-rw-rw-"));
    Path made = Files.createDirectory(work.resolve("made"));
    Files.setAttribute(made, "unix:mode", 02777);
    loan.close();

    assertThat(Files.getPosixFilePermissions(git))
        .isEqualTo(PosixFilePermissions.fromString("rwxr-xr-x"));
    assertThat(Files.getPosixFilePermissions(script))
        .isEqualTo(PosixFilePermissions.fromString("rwxr-xr-x"));
    assertThat(Files.getPosixFilePermissions(shared))
        .isEqualTo(PosixFilePermissions.fromString("rw-rw-rw-"));
    assertThat(Files.getPosixFilePermissions(created))
        .isEqualTo(PosixFilePermissions.fromString("rw-r--r--"));
    assertThat((Integer) Files.getAttribute(made, "unix:mode") & 07777).isEqualTo(0755);
  }

  @Test
  void aRegisterOthersCouldChangeIsRefused() throws Exception {
    Path open = Files.createDirectories(tmp.resolve("open"));
    Files.setPosixFilePermissions(open,
        PosixFilePermissions.fromString("rwxrwxrwx"));
    assertThatThrownBy(() -> OwnershipLoan.lend(List.of(work), NOBODY, new LoanRegister(open),
        "run run_a"))
        .hasMessageContaining("the loan register " + open + " must be a directory of uid 0 with"
            + " mode 0700");
    assertThat(uid(work)).isZero();
  }

  private static int uid(Path p) throws Exception {
    return (Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS);
  }

  private static int gid(Path p) throws Exception {
    return (Integer) Files.getAttribute(p, "unix:gid", LinkOption.NOFOLLOW_LINKS);
  }
}
