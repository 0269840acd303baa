package dev.pushgate.appliance.control;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.appliance.runs.RunRequestException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The body of {@code POST /v1/runs/{id}/launch}: {@code {"command": [...], "workdir": "..."}}.
 * Strict, as the run request is: an unknown field, a wrong type, an empty or NUL-bearing argument
 * is a 400 that names the field, never a launch of something else than was meant.
 */
record LaunchBody(List<String> command, String workdir) {
  static final int MAX_ARGUMENTS = 1024;
  /** Linux's own bound on one argument is 128 KiB; this is on them all, as ARG_MAX is. */
  static final int MAX_COMMAND_CHARS = 256 * 1024;
  static final int MAX_PATH_CHARS = 4096;

  LaunchBody {
    command = List.copyOf(command);
  }

  static LaunchBody parse(JsonNode body) throws RunRequestException {
    if (body == null || !body.isObject()) {
      throw bad("the body must be a JSON object: {\"command\": [\"program\", \"argument\", ...]}");
    }
    for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!name.equals("command") && !name.equals("workdir")) {
        throw bad("unknown field \"" + printable(name) + "\": a launch takes command and workdir");
      }
    }
    JsonNode c = body.get("command");
    if (c == null || c.isNull()) {
      throw bad("command is required: the program and its arguments, as an array of strings");
    }
    if (!c.isArray()) {
      throw bad("command must be an array of strings, not a " + c.getNodeType().name()
          .toLowerCase(java.util.Locale.ROOT));
    }
    if (c.isEmpty()) {
      throw bad("command is empty: it needs at least the program");
    }
    if (c.size() > MAX_ARGUMENTS) {
      throw bad("command has " + c.size() + " elements; at most " + MAX_ARGUMENTS);
    }
    List<String> command = new ArrayList<>();
    long chars = 0;
    for (int i = 0; i < c.size(); i++) {
      JsonNode a = c.get(i);
      if (!a.isTextual()) {
        throw bad("command[" + i + "] must be a string");
      }
      String arg = a.asText();
      if (arg.indexOf('\0') >= 0) {
        throw bad("command[" + i + "] has a NUL character");
      }
      chars += arg.length();
      command.add(arg);
    }
    if (command.get(0).isEmpty()) {
      throw bad("command[0], the program, is empty");
    }
    if (chars > MAX_COMMAND_CHARS) {
      throw bad("command is " + chars + " characters long; at most " + MAX_COMMAND_CHARS);
    }
    String workdir = null;
    JsonNode w = body.get("workdir");
    if (w != null && !w.isNull()) {
      if (!w.isTextual()) {
        throw bad("workdir must be a string: an absolute path inside the run's workdir");
      }
      workdir = w.asText();
      if (workdir.isEmpty() || workdir.length() > MAX_PATH_CHARS || workdir.indexOf('\0') >= 0
          || !workdir.startsWith("/")) {
        throw bad("workdir must be an absolute path of at most " + MAX_PATH_CHARS
            + " characters, without NUL");
      }
    }
    return new LaunchBody(command, workdir);
  }

  private static String printable(String s) {
    String p = dev.pushgate.types.UntrustedText.printable(s);
    return p.length() > 100 ? p.substring(0, 100) + "…" : p;
  }

  private static RunRequestException bad(String message) {
    return new RunRequestException(RunRequestException.Status.BAD_REQUEST, message);
  }
}
