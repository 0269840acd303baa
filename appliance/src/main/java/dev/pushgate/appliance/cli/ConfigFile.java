package dev.pushgate.appliance.cli;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Where {@code serve}'s settings come from, by precedence: flags, then {@code PUSHGATE_*}
 * environment variables, then the YAML file ({@code --config}, default {@code DIR/pushgate.yaml}),
 * then the built-in defaults. Every flag is a key of the file as written after {@code --}; keys
 * may nest under their first word ({@code github: {app-id: 1}} is {@code github-app-id}). Unknown
 * keys are errors, and so are {@code PUSHGATE_*} variables no option takes ({@link EnvDefaults}).
 * A key of {@link #LISTS} takes a list of mappings, which its option reads as JSON.
 */
final class ConfigFile implements CommandLine.IDefaultValueProvider {
  static final String ENV_PREFIX = "PUSHGATE_";
  private static final Set<String> NOT_IN_FILE = Set.of("config", "help", "version", "data-dir");
  /** Keys whose value is a list of mappings, handed to their option as JSON. */
  private static final Set<String> LISTS = Set.of("webhooks");

  /** Where a value came from, for {@code config check}. */
  enum Source { FLAG, ENV, FILE, DEFAULT }

  private final Path file;
  private final Map<String, String> values;
  private final Map<String, String> env;

  private ConfigFile(Path file, Map<String, String> values, Map<String, String> env) {
    this.file = file;
    this.values = values;
    this.env = env;
  }

  /**
   * Reads the file named by {@code --config} (or {@code PUSHGATE_CONFIG}), or {@code
   * DIR/pushgate.yaml} when present; checks its keys against {@code options}.
   */
  static ConfigFile load(String[] args, Map<String, String> env, List<String> optionNames)
      throws IOException {
    List<String> unknownEnv = EnvDefaults.unknown(env);
    if (!unknownEnv.isEmpty()) {
      throw new IllegalArgumentException("unknown environment variable"
          + (unknownEnv.size() > 1 ? "s " : " ") + String.join(", ", unknownEnv)
          + "; every PUSHGATE_* variable names an option (--foo-bar is PUSHGATE_FOO_BAR)");
    }
    String explicit = flagValue(args, "--config");
    if (explicit == null) {
      explicit = env.get(ENV_PREFIX + "CONFIG");
    }
    Path path;
    if (explicit != null) {
      path = Path.of(explicit);
      if (!Files.isRegularFile(path)) {
        throw new IllegalArgumentException("the config file " + path + " does not exist");
      }
    } else {
      String dir = flagValue(args, "--data-dir");
      if (dir == null) {
        dir = env.getOrDefault(ENV_PREFIX + "DATA_DIR", "pushgate-data");
      }
      path = Path.of(dir).resolve("pushgate.yaml");
      if (!Files.isRegularFile(path)) {
        return new ConfigFile(null, Map.of(), env);
      }
    }
    return new ConfigFile(path, read(path, optionNames), env);
  }

  Path file() {
    return file;
  }

  @Override
  public String defaultValue(ArgSpec argSpec) {
    if (!(argSpec instanceof OptionSpec option)) {
      return null;
    }
    String key = key(option);
    String fromEnv = env.get(envName(key));
    if (fromEnv != null) {
      return fromEnv;
    }
    return values.get(key);
  }

  Source sourceOf(OptionSpec option, String[] args) {
    String key = key(option);
    if (flagValue(args, option.longestName()) != null || List.of(args).contains(option.longestName())) {
      return Source.FLAG;
    }
    if (env.containsKey(envName(key))) {
      return Source.ENV;
    }
    return values.containsKey(key) ? Source.FILE : Source.DEFAULT;
  }

  static String envName(String key) {
    return ENV_PREFIX + key.toUpperCase(Locale.ROOT).replace('-', '_');
  }

  static String key(OptionSpec option) {
    return option.longestName().replaceFirst("^--", "");
  }

  private static Map<String, String> read(Path path, List<String> optionNames) throws IOException {
    ObjectMapper yaml = new ObjectMapper(new YAMLFactory())
        .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    JsonNode root;
    try {
      root = yaml.readTree(path.toFile());
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(path + ", line " + e.getLocation().getLineNr() + ": "
          + e.getOriginalMessage());
    }
    Map<String, String> out = new LinkedHashMap<>();
    if (root == null || root.isMissingNode() || root.isNull()) {
      return out;
    }
    if (!root.isObject()) {
      throw new IllegalArgumentException(path + ": the configuration must be a mapping of keys");
    }
    flatten(root, "", out, path);
    List<String> unknown = new ArrayList<>();
    for (String k : out.keySet()) {
      if (!optionNames.contains(k) || NOT_IN_FILE.contains(k)) {
        unknown.add(k + Suggest.hint(k,
            optionNames.stream().filter(n -> !NOT_IN_FILE.contains(n)).toList()));
      }
    }
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException(path + ": unknown key" + (unknown.size() > 1 ? "s " : " ")
          + String.join(", ", unknown) + " (known: " + String.join(", ",
              optionNames.stream().filter(n -> !NOT_IN_FILE.contains(n)).toList()) + ")");
    }
    return out;
  }

  private static void flatten(JsonNode node, String prefix, Map<String, String> out, Path path) {
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String key = prefix.isEmpty() ? e.getKey() : prefix + "-" + e.getKey();
      JsonNode v = e.getValue();
      if (v.isObject()) {
        flatten(v, key, out, path);
      } else if (v.isValueNode() && !v.isNull()) {
        out.put(key, v.asText());
      } else if (v.isArray() && LISTS.contains(key)) {
        out.put(key, v.toString()); // the option reads the list as JSON
      } else {
        throw new IllegalArgumentException(path + ": " + key + " must be a single value");
      }
    }
  }

  private static String flagValue(String[] args, String flag) {
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals(flag) && i + 1 < args.length) {
        return args[i + 1];
      }
      if (args[i].startsWith(flag + "=")) {
        return args[i].substring(flag.length() + 1);
      }
    }
    return null;
  }
}
