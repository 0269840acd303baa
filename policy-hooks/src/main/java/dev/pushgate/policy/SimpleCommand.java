package dev.pushgate.policy;

import java.util.List;

/**
 * One simple command found anywhere in a command line. Words are the shell's words after quote
 * removal; a part computed at run time ({@code $VAR}, {@code $(…)}, backticks) is one {@link
 * ShellParser#DYNAMIC} character, or {@link ShellParser#DYNAMIC_NONEMPTY} when the shell
 * guarantees it is not empty ({@code ${X:?}}); {@code $HOME} reads as {@code ~}.
 *
 * @param words the command name and arguments, without leading assignments
 * @param function the name of the function whose body holds this command, or null
 * @param concurrent whether it runs in a pipeline of two or more commands or in the background
 */
record SimpleCommand(
    List<String> words,
    List<String> assignments,
    List<Redirect> redirects,
    String function,
    boolean concurrent) {
  SimpleCommand {
    words = List.copyOf(words);
    assignments = List.copyOf(assignments);
    redirects = List.copyOf(redirects);
  }

  SimpleCommand runningConcurrently() {
    return concurrent ? this : new SimpleCommand(words, assignments, redirects, function, true);
  }
}
