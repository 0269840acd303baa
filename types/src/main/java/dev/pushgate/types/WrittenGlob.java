package dev.pushgate.types;

/**
 * A glob of one of pushgate's languages, known by how it was written: two globs of the same
 * language written alike are equal, and a glob shows as written. Each language is a subclass with
 * its {@link Glob.Dialect} and its parser; this class holds what they share, the written text and
 * what {@link Glob#compile} made of it.
 */
public abstract class WrittenGlob {
  private final String text;
  private final Glob compiled;

  /**
   * @param text the glob as written and shown; it may carry more than the glob ({@code !} before
   *     a content rule's exception) or be a canonical spelling of it (an egress host)
   * @param glob the glob itself, as the language's parser let it through
   * @param dialect the language's options
   */
  protected WrittenGlob(String text, String glob, Glob.Dialect dialect) {
    this.text = text;
    this.compiled = Glob.compile(glob, dialect);
  }

  /** The expression to match with, in the reader's engine, and the glob's specificity counts. */
  protected final Glob compiled() {
    return compiled;
  }

  @Override
  public final String toString() {
    return text;
  }

  /** Equal to a glob of the same language written the same. */
  @Override
  public final boolean equals(Object o) {
    return o != null && o.getClass() == getClass() && ((WrittenGlob) o).text.equals(text);
  }

  @Override
  public final int hashCode() {
    return text.hashCode();
  }
}
