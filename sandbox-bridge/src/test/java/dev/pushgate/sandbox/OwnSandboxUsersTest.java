package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OwnSandboxUsersTest {
  private static final int BASE = 2_100_000_000;

  @TempDir Path tmp;

  /** A random that answers the given offsets in turn, then the last one forever. */
  private static RandomGenerator offsets(Integer... values) {
    Deque<Integer> queue = new ArrayDeque<>(List.of(values));
    return new RandomGenerator() {
      @Override
      public long nextLong() {
        throw new UnsupportedOperationException();
      }

      @Override
      public int nextInt(int bound) {
        return queue.size() > 1 ? queue.poll() : queue.peek();
      }
    };
  }

  private OwnSandboxUsers users(HostIds ids, RandomGenerator random) {
    return new OwnSandboxUsers(tmp.resolve("holds"), BASE, OwnSandboxUsers.DEFAULT_LAST, ids,
        random);
  }

  @Test
  void theSystemRangeLiesAboveEveryDistributionsAndBelowTwoToTheThirtyOne() {
    assertThat(OwnSandboxUsers.DEFAULT_BASE).isGreaterThan(1_879_048_191);
    assertThat((long) OwnSandboxUsers.DEFAULT_LAST).isLessThan(1L << 31);
  }

  @Test
  void concurrentLeasesGetDifferentIdsInTheRangeNeverNobody() throws Exception {
    OwnSandboxUsers users = new OwnSandboxUsers(tmp.resolve("holds"),
        OwnSandboxUsers.DEFAULT_BASE, OwnSandboxUsers.DEFAULT_LAST, id -> null,
        new java.security.SecureRandom());
    List<OwnSandboxUsers.Lease> leases = new ArrayList<>();
    Set<Integer> seen = new HashSet<>();
    try {
      for (int i = 0; i < 20; i++) {
        OwnSandboxUsers.Lease lease = users.lease();
        leases.add(lease);
        SandboxUser u = lease.user();
        assertThat(u.uid()).isBetween(OwnSandboxUsers.DEFAULT_BASE, OwnSandboxUsers.DEFAULT_LAST)
            .isNotEqualTo(SandboxUser.NOBODY.uid());
        assertThat(u.gid()).isEqualTo(u.uid());
        assertThat(seen.add(u.uid())).as("uid %s handed out twice", u.uid()).isTrue();
      }
    } finally {
      leases.forEach(OwnSandboxUsers.Lease::close);
    }
  }

  @Test
  void anIdHeldByALiveLeaseIsSkippedAndFreeAgainOnceItIsClosed() throws Exception {
    OwnSandboxUsers users = users(id -> null, offsets(7, 7, 9));
    OwnSandboxUsers.Lease first = users.lease();
    assertThat(first.user().uid()).isEqualTo(BASE + 7);
    try (OwnSandboxUsers.Lease second = users.lease()) {
      assertThat(second.user().uid()).isEqualTo(BASE + 9);
    }
    assertThat(tmp.resolve("holds/" + (BASE + 7) + ".lock")).exists();
    first.close();
    first.close(); // twice is harmless
    assertThat(tmp.resolve("holds/" + (BASE + 7) + ".lock")).doesNotExist();
    try (OwnSandboxUsers.Lease again = users(id -> null, offsets(7)).lease()) {
      assertThat(again.user().uid()).isEqualTo(BASE + 7);
    }
  }

  @Test
  void anIdTheHostAlreadyUsesIsNeverHandedOut() throws Exception {
    Set<Integer> asked = new HashSet<>();
    HostIds host = id -> {
      asked.add(id);
      return id == BASE + 3 ? "process 42 runs with it" : id == BASE + 4 ? "it is in /etc/group"
          : null;
    };
    try (OwnSandboxUsers.Lease lease = users(host, offsets(3, 4, 5)).lease()) {
      assertThat(lease.user().uid()).isEqualTo(BASE + 5);
    }
    assertThat(asked).containsExactlyInAnyOrder(BASE + 3, BASE + 4, BASE + 5);
    // The ids found taken were let go again.
    try (var holds = Files.list(tmp.resolve("holds"))) {
      assertThat(holds.map(p -> p.getFileName().toString())).containsOnly(".mutex");
    }
  }

  @Test
  void whenNoFreeIdIsFoundTheLeaseFailsAndSaysWhatToDo() {
    assertThatThrownBy(() -> users(id -> "it is in /etc/passwd", offsets(1)).lease())
        .isInstanceOf(IOException.class)
        .hasMessageContaining("no free sandbox user id")
        .hasMessageContaining("--sandbox-user");
  }

  @Test
  void whenTheHostCannotBeAskedTheLeaseFailsClosed() {
    assertThatThrownBy(() -> users(id -> {
      throw new IOException("getent passwd failed with exit 1");
    }, offsets(1)).lease())
        .isInstanceOf(IOException.class)
        .hasMessageContaining("cannot tell whether uid " + (BASE + 1) + " is free")
        .hasMessageContaining("getent passwd failed");
  }

  @Test
  void aHoldsDirectoryOthersCanEnterIsRefused() throws Exception {
    Path holds = Files.createDirectory(tmp.resolve("holds"));
    Files.setPosixFilePermissions(holds, PosixFilePermissions.fromString("rwxr-xr-x"));
    assertThatThrownBy(() -> users(id -> null, offsets(1)).lease())
        .isInstanceOf(IOException.class)
        .hasMessageContaining("mode 0700");
    try (var left = Files.list(holds)) {
      assertThat(left).isEmpty();
    }
  }

  @Test
  void aHoldsDirectoryThatIsALinkIsRefused() throws Exception {
    Path real = Files.createDirectory(tmp.resolve("elsewhere"));
    Files.setPosixFilePermissions(real, PosixFilePermissions.fromString("rwx------"));
    Files.createSymbolicLink(tmp.resolve("holds"), real);
    assertThatThrownBy(() -> users(id -> null, offsets(1)).lease())
        .isInstanceOf(IOException.class)
        .hasMessageContaining("must be a directory");
  }

  @Test
  void theHostIdsOfThisMachineKnowRootAndThisProcessAndNotAnUnusedHighId() throws Exception {
    assertThat(HostIds.SYSTEM.taken(0)).isNotNull();
    int mine = LocalLauncher.currentUid();
    assertThat(HostIds.SYSTEM.taken(mine)).isNotNull();
    assertThat(HostIds.SYSTEM.taken(OwnSandboxUsers.DEFAULT_LAST)).isNull();
  }

  @Test
  void aHoldsDirectoryWhoseParentIsMissingIsRefusedAndNotMade() {
    OwnSandboxUsers users = new OwnSandboxUsers(tmp.resolve("missing/holds"), BASE,
        OwnSandboxUsers.DEFAULT_LAST, id -> null, offsets(1));
    assertThatThrownBy(users::lease)
        .isInstanceOf(IOException.class)
        .hasMessageContaining("is not a directory");
    assertThat(tmp.resolve("missing")).doesNotExist();
  }

  @Test
  void aRangeThatCouldMeetSystemUsersIsRefused() {
    assertThatThrownBy(() -> new OwnSandboxUsers(tmp, 1000, 2000, id -> null,
        new java.security.SecureRandom()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("above 65535");
  }
}
