package dev.pushgate.types;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * An enum constant read back from its id (the word a rules document, a request or JSON names it
 * by), one way for every enum that has ids: the same refusal, naming the value as {@link
 * UntrustedText#printable} shows it and every id it could have been.
 */
public final class EnumIds {
  private EnumIds() {}

  /**
   * The constant of {@code type} whose id is {@code id}.
   *
   * @param idOf a constant's id
   * @param what what one constant is, with its article, for the refusal ({@code "a mode"})
   * @throws IllegalArgumentException {@code not a mode: yolo (expected chat, plan, review or
   *     orchestrate)}, when no constant has that id (null included)
   */
  public static <E extends Enum<E>> E parse(
      Class<E> type, Function<E, String> idOf, String id, String what) {
    for (E e : type.getEnumConstants()) {
      if (idOf.apply(e).equals(id)) {
        return e;
      }
    }
    throw new IllegalArgumentException("not " + what + ": " + UntrustedText.printable(id)
        + " (expected " + choices(type, idOf) + ")");
  }

  /** Every id of {@code type} in declaration order, as a person reads a choice: {@code a, b or c}. */
  public static <E extends Enum<E>> String choices(Class<E> type, Function<E, String> idOf) {
    List<String> ids = new ArrayList<>();
    for (E e : type.getEnumConstants()) {
      ids.add(idOf.apply(e));
    }
    int last = ids.size() - 1;
    return last == 0 ? ids.get(0) : String.join(", ", ids.subList(0, last)) + " or " + ids.get(last);
  }
}
