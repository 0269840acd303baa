package dev.pushgate.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ShellParserTest {
  private static final String D = String.valueOf(ShellParser.DYNAMIC);

  private static List<List<String>> words(String line) throws ShellSyntaxException {
    return ShellParser.parse(line).stream().map(SimpleCommand::words).toList();
  }

  @Test
  void splitsListsPipelinesAndBackgroundJobs() throws Exception {
    assertThat(words("git status && git commit -m x || echo no; ls | grep y & wc\nid"))
        .containsExactly(List.of("git", "status"), List.of("git", "commit", "-m", "x"),
            List.of("echo", "no"), List.of("ls"), List.of("grep", "y"), List.of("wc"), List.of("id"));
  }

  @Test
  void resolvesQuotesAndEscapesLikeTheShell() throws Exception {
    assertThat(words("echo 'a  b' \"c \\\"d\\\" \\$e\" f\\ g 'it'\"'\"'s' $'t\\tu\\x41\\'' $\"v\""))
        .containsExactly(List.of("echo", "a  b", "c \"d\" $e", "f g", "it's", "t\tuA'", "v"));
    assertThat(words("g\\it pu\\sh")).containsExactly(List.of("git", "push"));
    assertThat(words("echo a\\\nb")).containsExactly(List.of("echo", "ab"));
    assertThat(words("echo \"a\\qb\"")).containsExactly(List.of("echo", "a\\qb"));
  }

  @Test
  void marksRunTimeValuesButReadsHomeAsTilde() throws Exception {
    assertThat(words("echo $X ${Y} \"$@\" $1 $(id) `id` $((1+2)) \"$HOME/x\" ${HOME} ${Z:?}/"))
        .last().isEqualTo(List.of("echo", D, D, D, D, D, D, D, "~/x", "~",
            ShellParser.DYNAMIC_NONEMPTY + "/"));
    assertThat(words("echo $ a$")).containsExactly(List.of("echo", "$", "a$"));
  }

  @Test
  void findsCommandsInsideSubstitutionsAndCompoundCommands() throws Exception {
    assertThat(words("echo \"$(git push)\" `npm i` <(curl x) >(wc) ${X:-$(id)}"))
        .containsExactly(List.of("git", "push"), List.of("npm", "i"), List.of("curl", "x"),
            List.of("wc"), List.of("id"), List.of("echo", D, D, D, D, D));
    assertThat(words("(cd a && make) ; { b; c; } ; if t; then u; elif v; then w; else x; fi"))
        .containsExactly(List.of("cd", "a"), List.of("make"), List.of("b"), List.of("c"),
            List.of("t"), List.of("u"), List.of("v"), List.of("w"), List.of("x"));
    assertThat(words("for f in $(ls); do rm \"$f\"; done; while read l; do echo; done < in"))
        .containsExactly(List.of("ls"), List.of("rm", D), List.of("read", "l"), List.of("echo"),
            List.of());
    assertThat(words("case $x in a|b) git push;; (*) echo no;; esac"))
        .containsExactly(List.of("git", "push"), List.of("echo", "no"));
    assertThat(words("[[ $a < b && -f x ]] && ((i++)) && x=$(( $(y) + 1 ))"))
        .containsExactly(List.of("y"), List.of());
  }

  @Test
  void separatesAssignmentsAndRedirections() throws Exception {
    SimpleCommand c = ShellParser.parse("A=1 B=\"x y\" arr=(p $(q) r) git push 2>&1 >/dev/null"
        + " <in &>>all {fd}>x").get(1);
    assertThat(c.assignments()).hasSize(3);
    assertThat(c.words()).containsExactly("git", "push");
    assertThat(c.redirects()).extracting(r -> r.written() + " " + r.target())
        .containsExactly("2>& 1", "> /dev/null", "< in", "&>> all", "{fd}> x");
    assertThat(c.redirects()).extracting(Redirect::op)
        .containsExactly(">&", ">", "<", "&>>", ">");
    assertThat(words("\"A=1\" x")).containsExactly(List.of("A=1", "x"));
  }

  @Test
  void readsHereDocumentsAfterTheLine() throws Exception {
    List<SimpleCommand> quoted =
        ShellParser.parse("git commit -m \"$(cat <<'EOF'\nfix: $(not run)\nEOF\n)\" && echo ok");
    assertThat(quoted).extracting(SimpleCommand::words).containsExactly(
        List.of("cat"), List.of("git", "commit", "-m", D), List.of("echo", "ok"));
    assertThat(quoted.get(0).redirects().get(0).input()).isEqualTo("fix: $(not run)\n");

    List<SimpleCommand> open = ShellParser.parse("cat <<-EOF > out\n\thi $(git push)\n\tEOF\nls");
    assertThat(open).extracting(SimpleCommand::words)
        .containsExactly(List.of("git", "push"), List.of("cat"), List.of("ls"));
    assertThat(open.get(1).redirects().get(0).input()).isEqualTo("hi " + D + "\n");
    assertThat(ShellParser.parse("sh <<< 'npm i'").get(0).redirects().get(0).input())
        .isEqualTo("npm i");
  }

  @Test
  void skipsComments() throws Exception {
    assertThat(words("# git push\nls # && git push\necho a#b")).containsExactly(
        List.of("ls"), List.of("echo", "a#b"));
  }

  @Test
  void recordsFunctionsAndConcurrency() throws Exception {
    List<SimpleCommand> bomb = ShellParser.parse(":(){ :|:& };:");
    assertThat(bomb).extracting(SimpleCommand::function).containsExactly(":", ":", null);
    assertThat(bomb).extracting(SimpleCommand::concurrent).containsExactly(true, true, false);
    List<SimpleCommand> plain = ShellParser.parse("function f { ls; }; f; g &");
    assertThat(plain).extracting(SimpleCommand::function).containsExactly("f", null, null);
    assertThat(plain).extracting(SimpleCommand::concurrent).containsExactly(false, false, true);
  }

  static Stream<Arguments> malformed() {
    return Stream.of(
        Arguments.of("echo 'x", "unclosed single quote", 5),
        Arguments.of("echo \"x", "unclosed double quote", 5),
        Arguments.of("echo `x", "unclosed backtick", 5),
        Arguments.of("echo $(x", "unclosed $( or <( (expected ')')", 5),
        Arguments.of("cat <(x", "unclosed $( or <( (expected ')')", 4),
        Arguments.of("echo ${x", "unclosed ${", 5),
        Arguments.of("echo $((1+2)", "unclosed (( (expected '))')", 5),
        Arguments.of("echo $'x", "unclosed $'", 5),
        Arguments.of("(ls", "unclosed ( (expected ')')", 0),
        Arguments.of("ls)", "unexpected ')'", 2),
        Arguments.of("{ ls", "unclosed { (expected '}')", 0),
        Arguments.of("if true; then ls", "unclosed if (expected 'fi')", 0),
        Arguments.of("while true; do ls", "unclosed while (expected 'done')", 0),
        Arguments.of("for x in a; do", "unclosed for (expected 'done')", 0),
        Arguments.of("case x in a) ls;;", "unclosed case (no esac)", 0),
        Arguments.of("[[ -f x", "unclosed [[", 0),
        Arguments.of("ls &&", "unexpected end of input", 5),
        Arguments.of("ls |", "unexpected end of input", 4),
        Arguments.of("| ls", "unexpected '|'", 0),
        Arguments.of("ls | | wc", "unexpected '|'", 5),
        Arguments.of(";; ls", "unexpected ';;'", 0),
        Arguments.of("; ls", "unexpected ';'", 0),
        Arguments.of("fi", "unexpected 'fi'", 0),
        Arguments.of("case x 'a\nb' in", "unexpected 'a b'", 7),
        Arguments.of("ls; done", "unexpected 'done'", 4),
        Arguments.of("echo >", "redirection > has no target", 5),
        Arguments.of("f() ls", "a function body must be a compound command", 4),
        Arguments.of("echo `echo 'x`", "unclosed single quote inside `…` or a here-document", 5),
        Arguments.of("a=(x", "unclosed array (expected ')')", 2),
        Arguments.of("echo \0", "a NUL or control character the shell cannot pass", 5));
  }

  @ParameterizedTest
  @MethodSource("malformed")
  void refusesWhatTheShellWouldRefuse(String line, String message, int offset) {
    assertThatThrownBy(() -> ShellParser.parse(line))
        .isInstanceOfSatisfying(ShellSyntaxException.class, e -> {
          assertThat(e.getMessage()).isEqualTo(message);
          assertThat(e.offset()).isEqualTo(offset);
        });
  }

  @Test
  void refusesNestingDeeperThanTheLimitWithoutOverflowingTheStack() {
    // "((" would be an arithmetic command, as in bash; "( (" is two sub-shells.
    String deep = "( ".repeat(10_000) + "ls" + " )".repeat(10_000);
    assertThatThrownBy(() -> ShellParser.parse(deep)).hasMessage("nested too deeply");
    String deepSubst = "echo " + "$(".repeat(10_000) + "ls" + ")".repeat(10_000);
    assertThatThrownBy(() -> ShellParser.parse(deepSubst)).hasMessage("nested too deeply");
    String deepTicks = "echo " + "\"$(".repeat(ShellParser.MAX_DEPTH + 5) + "ls"
        + ")\"".repeat(ShellParser.MAX_DEPTH + 5);
    assertThatThrownBy(() -> ShellParser.parse(deepTicks)).hasMessage("nested too deeply");
  }

  @Test
  void refusesAnOversizedLine() {
    String huge = "echo " + "x".repeat(ShellParser.MAX_LENGTH);
    assertThatThrownBy(() -> ShellParser.parse(huge))
        .hasMessage("longer than 1048576 characters");
  }

  @Test
  void acceptsWhatTheShellAccepts() throws Exception {
    assertThat(ShellParser.parse("")).isEmpty();
    assertThat(ShellParser.parse("   \n\n  # nothing")).isEmpty();
    assertThat(words("ls;")).containsExactly(List.of("ls"));
    assertThat(words("ls &")).containsExactly(List.of("ls"));
    assertThat(words("ls &&\n  wc")).containsExactly(List.of("ls"), List.of("wc"));
    assertThat(words("! false")).containsExactly(List.of("false"));
    assertThat(words("time -p sleep 1")).containsExactly(List.of("sleep", "1"));
    assertThat(words("> out")).containsExactly(List.of());
    assertThat(words("echo }")).containsExactly(List.of("echo", "}"));
    assertThat(words("echo done fi")).containsExactly(List.of("echo", "done", "fi"));
  }
}
