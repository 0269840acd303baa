package dev.pushgate.gateway;

import java.util.Locale;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.eclipse.jgit.treewalk.filter.TreeFilter;

/**
 * The paths of a tree that are, or could stand for, GitHub's workflow directory: everything under
 * {@code .github/workflows/} in any case (a checkout on a case-insensitive disk, or a later change
 * of GitHub's matching, would make {@code .GitHub/Workflows} the same directory), and the entries
 * {@code .github} and {@code .github/workflows} themselves when they are not directories (a
 * symbolic link or a submodule there points the workflow directory somewhere else). Stricter than
 * GitHub's own check, which compares the path byte for byte: the rules fail closed.
 */
final class WorkflowPaths extends TreeFilter {
  static final TreeFilter INSTANCE = new WorkflowPaths();

  private static final String GITHUB = ".github";
  private static final String WORKFLOWS = ".github/workflows";

  private WorkflowPaths() {}

  @Override
  public boolean include(TreeWalk walker) {
    // The same test for a directory (walk into it) and for a file or link (report it).
    String path = walker.getPathString().toLowerCase(Locale.ROOT);
    return path.equals(GITHUB) || path.equals(WORKFLOWS) || path.startsWith(WORKFLOWS + "/");
  }

  @Override
  public boolean shouldBeRecursive() {
    return true;
  }

  @Override
  public TreeFilter clone() {
    return this;
  }

  @Override
  public String toString() {
    return "WORKFLOW_PATHS";
  }
}
