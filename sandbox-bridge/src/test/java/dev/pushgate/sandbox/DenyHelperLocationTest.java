package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code java -jar pushgate.jar} finds the name-deny helper where its launchers pass it. */
class DenyHelperLocationTest {
  @TempDir Path tmp;

  @Test
  void theReleaseArchivesHelperIsFoundInLibexecBesideLib() throws Exception {
    Path jar = touch(tmp.resolve("opt/pushgate/lib/pushgate.jar"), "rw-r--r--");
    Path helper = touch(tmp.resolve("opt/pushgate/libexec/pushgate-denyfs"), "rwxr-xr-x");
    assertThat(NameDenyLayer.Availability.besideTheJar(jar)).isEqualTo(helper.toString());
  }

  @Test
  void theSourceTreesHelperIsFoundInSandboxBridgesBuild() throws Exception {
    Path jar = touch(tmp.resolve("src/appliance/target/pushgate.jar"), "rw-r--r--");
    Path helper = touch(tmp.resolve("src/sandbox-bridge/target/native/pushgate-denyfs"),
        "rwxr-xr-x");
    assertThat(NameDenyLayer.Availability.besideTheJar(jar)).isEqualTo(helper.toString());
  }

  @Test
  void aHelperThatIsNotExecutableOrNoJarAtAllFindsNothing() throws Exception {
    Path jar = touch(tmp.resolve("x/lib/pushgate.jar"), "rw-r--r--");
    touch(tmp.resolve("x/libexec/pushgate-denyfs"), "rw-r--r--");
    assertThat(NameDenyLayer.Availability.besideTheJar(jar)).isNull();
    assertThat(NameDenyLayer.Availability.besideTheJar(null)).isNull();
    // classes from a directory (tests, an IDE) are not a jar
    assertThat(NameDenyLayer.Availability.jarOf(DenyHelperLocationTest.class)).isNull();
  }

  private static Path touch(Path file, String mode) throws Exception {
    Files.createDirectories(file.getParent());
    Files.writeString(file, "");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
    return file;
  }
}
