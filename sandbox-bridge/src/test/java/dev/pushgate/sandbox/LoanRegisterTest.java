package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How a loan file another process holds is read: whole, or as a loan of everything. */
class LoanRegisterTest {
  @TempDir Path tmp;

  @Test
  void aLoanFileIsReadWholeUpToItsBound() throws Exception {
    String root = "/w/" + "x".repeat(LoanRegister.MAX_LOAN_BYTES - "run a\0/w/\0".length());

    assertThat(read("run a\0" + root + "\0")).isEqualTo(
        new LoanRegister.Recorded("run a", List.of(Path.of(root))));
  }

  /** Roots past a cut would go unseen: a loan file beyond the bound is read as everything. */
  @Test
  void aLoanFileBeyondItsBoundIsReadAsALoanOfEverything() throws Exception {
    String root = "/w/" + "x".repeat(LoanRegister.MAX_LOAN_BYTES);

    assertThat(read("run a\0/elsewhere\0" + root + "\0").roots()).containsExactly(Path.of("/"));
  }

  @Test
  void aLoanFileNamingNoDirectoryIsReadAsALoanOfEverything() throws Exception {
    assertThat(read("run a\0").roots()).containsExactly(Path.of("/"));
    assertThat(read("").roots()).containsExactly(Path.of("/"));
  }

  /** A lender writes real, absolute paths; anything else is a file damaged or not a lender's. */
  @Test
  void aLoanFileNamingARelativePathIsReadAsALoanOfEverything() throws Exception {
    assertThat(read("run a\0tmp/wd\0").roots()).containsExactly(Path.of("/"));
    assertThat(read("\u00ff\u00fe\0garbage\0").roots()).containsExactly(Path.of("/"));
    assertThat(read("run a\0/w\0wd\0").roots()).containsExactly(Path.of("/"));
  }

  private LoanRegister.Recorded read(String content) throws Exception {
    Path file = Files.writeString(tmp.resolve("loan"), content, StandardCharsets.UTF_8);
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      return LoanRegister.parse(channel);
    }
  }
}
