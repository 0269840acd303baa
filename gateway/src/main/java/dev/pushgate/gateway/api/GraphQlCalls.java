package dev.pushgate.gateway.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pushgate.gateway.ProposedContent;
import dev.pushgate.gateway.api.ApiJudgement.ApiAction;
import dev.pushgate.policy.ActionClass;
import dev.pushgate.policy.UpdateKind;
import dev.pushgate.types.RepoSlug;
import graphql.language.Argument;
import graphql.language.ArrayValue;
import graphql.language.BooleanValue;
import graphql.language.Definition;
import graphql.language.Document;
import graphql.language.EnumValue;
import graphql.language.Field;
import graphql.language.FloatValue;
import graphql.language.FragmentDefinition;
import graphql.language.FragmentSpread;
import graphql.language.InlineFragment;
import graphql.language.IntValue;
import graphql.language.ObjectField;
import graphql.language.ObjectValue;
import graphql.language.OperationDefinition;
import graphql.language.Selection;
import graphql.language.SelectionSet;
import graphql.language.StringValue;
import graphql.language.Value;
import graphql.language.VariableDefinition;
import graphql.language.VariableReference;
import graphql.parser.Parser;
import graphql.parser.ParserEnvironment;
import graphql.parser.ParserOptions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A GraphQL call ({@code {"query", "variables", "operationName"}}) judged field by field: the
 * operation GitHub would run is picked as GitHub picks it, fragments at the root are resolved,
 * and each root field of a mutation is mapped to an action, whatever its alias. Argument values
 * are read from literals and from the variables. A mutation field not known here is denied.
 *
 * <p>Reads: a root {@code repository(owner, name)} must name one of the run's repositories, and
 * only a few root fields are allowed at all; below the root, what a query reaches is limited by
 * the token's repository scope, not judged per field.
 */
final class GraphQlCalls {
  /** Larger documents are refused unparsed. */
  static final int MAX_DOCUMENT = 256 * 1024;
  private static final int MAX_FRAGMENT_DEPTH = 16;
  private static final int MAX_ROOT_FIELDS = 256;
  private static final ParserOptions OPTIONS = ParserOptions.newParserOptions()
      .maxCharacters(MAX_DOCUMENT)
      .maxTokens(50_000)
      .maxWhitespaceTokens(200_000)
      .maxRuleDepth(100)
      .captureIgnoredChars(false)
      .captureLineComments(false)
      .captureSourceLocation(false)
      .redactTokenParserErrorMessages(true)
      .build();
  /** Root query fields allowed: {@code repository} only for the run's repositories. */
  private static final Set<String> ROOT_READS = Set.of("repository", "viewer", "rateLimit",
      "node", "nodes", "meta", "__typename", "__schema", "__type");

  private enum Kind { OPEN_PR, REVIEW, MERGE, TRACKER }

  private record Mapping(Kind kind, String what) {}

  private static final Map<String, Mapping> MUTATIONS = new HashMap<>();

  static {
    for (String f : List.of("createPullRequest", "updatePullRequest", "reopenPullRequest",
        "closePullRequest", "convertPullRequestToDraft", "markPullRequestReadyForReview",
        "requestReviews")) {
      MUTATIONS.put(f, new Mapping(Kind.OPEN_PR, f.equals("createPullRequest")
          ? "opening a pull request" : "changing a pull request (" + f + ")"));
    }
    for (String f : List.of("addPullRequestReview", "submitPullRequestReview",
        "addPullRequestReviewComment", "addPullRequestReviewThread",
        "addPullRequestReviewThreadReply", "updatePullRequestReview",
        "updatePullRequestReviewComment", "deletePullRequestReview",
        "deletePullRequestReviewComment", "dismissPullRequestReview", "resolveReviewThread",
        "unresolveReviewThread", "disablePullRequestAutoMerge", "dequeuePullRequest")) {
      MUTATIONS.put(f, new Mapping(Kind.REVIEW, "publishing a review (" + f + ")"));
    }
    MUTATIONS.put("mergePullRequest", new Mapping(Kind.MERGE, "merging a pull request"));
    MUTATIONS.put("enablePullRequestAutoMerge",
        new Mapping(Kind.MERGE, "enabling auto-merge of a pull request"));
    MUTATIONS.put("enqueuePullRequest",
        new Mapping(Kind.MERGE, "adding a pull request to the merge queue"));
    MUTATIONS.put("mergeBranch", new Mapping(Kind.MERGE, "merging a branch"));
    for (String f : List.of("addComment", "updateIssueComment", "deleteIssueComment",
        "createIssue", "updateIssue", "closeIssue", "reopenIssue", "addLabelsToLabelable",
        "removeLabelsFromLabelable", "clearLabelsFromLabelable", "addReaction",
        "removeReaction", "addAssigneesToAssignable", "removeAssigneesFromAssignable",
        "lockLockable", "unlockLockable", "minimizeComment", "unminimizeComment")) {
      MUTATIONS.put(f, new Mapping(Kind.TRACKER, "writing to the tracker (" + f + ")"));
    }
  }

  /** What a GraphQL request body may hold: GitHub documents these three and no other. */
  private static final Set<String> BODY_FIELDS = Set.of("query", "variables", "operationName");

  private final RunPolicy policy;
  private final ParsedDocuments parsed = new ParsedDocuments();

  GraphQlCalls(RunPolicy policy) {
    this.policy = policy;
  }

  ApiJudgement judge(String route, byte[] body) {
    Optional<JsonNode> json = JsonBody.object(body);
    if (json.isEmpty()) {
      return denied(route, "the body is not a JSON object");
    }
    for (java.util.Iterator<String> names = json.get().fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!BODY_FIELDS.contains(name)) {
        // A persisted-query id or "extensions", or a key a lenient server would fold to "query":
        // another document than the judged one could run.
        return denied(route, "the body has a field the boundary does not read ("
            + RestRoutes.shown(name) + "); send only query, variables and operationName");
      }
    }
    JsonNode query = json.get().get("query");
    JsonNode variables = json.get().get("variables");
    JsonNode operationName = json.get().get("operationName");
    if (query == null || !query.isTextual()) {
      return denied(route, "the body has no query");
    }
    if (variables != null && !variables.isNull() && !variables.isObject()
        || operationName != null && !operationName.isNull() && !operationName.isTextual()) {
      return denied(route, "variables or operationName is not of the expected type");
    }
    if (query.asText().length() > MAX_DOCUMENT) {
      return denied(route, "the document is larger than " + MAX_DOCUMENT / 1024 + " KiB");
    }
    Document doc;
    try {
      doc = parsed.of(query.asText(), text -> Parser.parse(
          ParserEnvironment.newParserEnvironment().document(text).parserOptions(OPTIONS).build()));
    } catch (RuntimeException e) { // InvalidSyntaxException, and the parser's limits
      return denied(route, "the document cannot be parsed");
    }
    Optional<String> rendered = RenderedHtml.selectedIn(doc);
    if (rendered.isPresent()) {
      return denied(route, rendered.get());
    }
    List<OperationDefinition> operations = new ArrayList<>();
    Map<String, FragmentDefinition> fragments = new HashMap<>();
    for (Definition<?> d : doc.getDefinitions()) {
      if (d instanceof OperationDefinition op) {
        operations.add(op);
      } else if (d instanceof FragmentDefinition f) {
        if (fragments.put(f.getName(), f) != null) {
          return denied(route, "the document defines a fragment twice");
        }
      } else {
        return denied(route, "the document holds more than operations and fragments");
      }
    }
    Optional<OperationDefinition> picked = pick(operations,
        operationName == null || operationName.isNull() ? null : operationName.asText());
    if (picked.isEmpty()) {
      return denied(route, operationName == null || operationName.isNull()
          ? "the document has several operations (or none) and names none to run"
          : "the document has no operation named "
              + RestRoutes.shown(operationName.asText()));
    }
    OperationDefinition op = picked.get();
    List<Field> fields = new ArrayList<>();
    boolean resolved = rootFields(op.getSelectionSet(), fragments, 0, new HashSet<>(), fields);
    if (fields.size() > MAX_ROOT_FIELDS) {
      // Counted as the judge reads them: each alias, and each field a fragment brings, is one.
      return denied(route, "it selects more than " + MAX_ROOT_FIELDS + " root fields (aliases"
          + " and fields through fragments each count); pushgate judges at most "
          + MAX_ROOT_FIELDS + " in one call: split the call");
    }
    if (!resolved) {
      return denied(route, "its fragments cannot be resolved");
    }
    try {
      Map<String, JsonNode> vars = variables(op, variables);
      return switch (op.getOperation()) {
        case QUERY -> query(route, fields, vars);
        case MUTATION -> mutation(route, fields, vars);
        case SUBSCRIPTION -> denied(route, "subscriptions are not judged");
      };
    } catch (Ambiguous e) {
      return denied(route, "it gives the same argument, input field or variable twice");
    }
  }

  /** A name given twice where GitHub would take one of them: refused, not guessed at. */
  private static final class Ambiguous extends RuntimeException {
    Ambiguous() {
      super(null, null, false, false);
    }
  }

  /** The operation GitHub runs: the one named, or the only one. */
  private static Optional<OperationDefinition> pick(List<OperationDefinition> ops, String name) {
    if (name == null) {
      return ops.size() == 1 ? Optional.of(ops.get(0)) : Optional.empty();
    }
    List<OperationDefinition> named =
        ops.stream().filter(o -> name.equals(o.getName())).toList();
    return named.size() == 1 ? Optional.of(named.get(0)) : Optional.empty();
  }

  /** Each declared variable's value: the one sent, else its default, else null. */
  private static Map<String, JsonNode> variables(OperationDefinition op, JsonNode sent) {
    Map<String, JsonNode> out = new HashMap<>();
    for (VariableDefinition v : op.getVariableDefinitions()) {
      if (out.containsKey(v.getName())) {
        throw new Ambiguous();
      }
      JsonNode given = sent == null || sent.isNull() ? null : sent.get(v.getName());
      out.put(v.getName(), given != null ? given
          : v.getDefaultValue() != null ? value(v.getDefaultValue(), Map.of()) : NullNode.instance);
    }
    return out;
  }

  /** The root fields of a selection, through fragments; false when a fragment is unknown or loops. */
  private static boolean rootFields(SelectionSet set, Map<String, FragmentDefinition> fragments,
      int depth, Set<String> visiting, List<Field> into) {
    if (set == null || depth > MAX_FRAGMENT_DEPTH) {
      return set != null ? false : true;
    }
    for (Selection<?> s : set.getSelections()) {
      if (into.size() > MAX_ROOT_FIELDS) {
        return false; // too many already: the caller refuses the call for that
      }
      if (s instanceof Field f) {
        into.add(f);
      } else if (s instanceof InlineFragment i) {
        if (!rootFields(i.getSelectionSet(), fragments, depth + 1, visiting, into)) {
          return false;
        }
      } else if (s instanceof FragmentSpread spread) {
        FragmentDefinition def = fragments.get(spread.getName());
        if (def == null || !visiting.add(spread.getName())) {
          return false;
        }
        if (!rootFields(def.getSelectionSet(), fragments, depth + 1, visiting, into)) {
          return false;
        }
        visiting.remove(spread.getName());
      } else {
        return false;
      }
    }
    return true;
  }

  /**
   * What works instead of a root field that is denied, for the clients that use it. {@code search}
   * stays denied, even scoped by a {@code repo:} qualifier: its query is free text GitHub parses
   * ({@code OR}, several qualifiers, {@code org:}, {@code user:}, quoting), so a reader here could
   * not be sure it names one repository; {@code gh pr status} searches, {@code gh pr list} and
   * {@code gh pr view} read the repository itself.
   */
  private static final Map<String, String> INSTEAD = Map.of("search", " (gh pr status and gh"
      + " search use it); use gh pr list, gh pr view or gh issue list, which read one of the run's"
      + " repositories");

  private ApiJudgement query(String route, List<Field> fields, Map<String, JsonNode> vars) {
    List<ApiAction> actions = new ArrayList<>();
    for (Field f : fields) {
      String name = f.getName();
      if (!ROOT_READS.contains(name)) {
        actions.add(RunPolicy.denied(RunPolicy.READ, null, name, "the GraphQL field "
            + RestRoutes.shown(name) + " reads outside this run's repositories, so it is denied"
            + INSTEAD.getOrDefault(name, "")));
      } else if (name.equals("repository")) {
        actions.add(repositoryRead(f, vars));
      } else {
        actions.add(policy.read(null, name));
      }
    }
    return actions.isEmpty() ? denied(route, "the query selects nothing")
        : new ApiJudgement(actions, false);
  }

  private ApiAction repositoryRead(Field f, Map<String, JsonNode> vars) {
    JsonNode owner = argument(f, "owner", vars);
    JsonNode name = argument(f, "name", vars);
    if (!owner.isTextual() || !name.isTextual()) {
      return RunPolicy.denied(RunPolicy.READ, null, "repository",
          "a GraphQL repository read whose owner and name cannot be read is denied");
    }
    return policy.runRepository(owner.asText(), name.asText())
        .map(r -> policy.read(r, "repository"))
        .orElseGet(() -> RunPolicy.otherRepository(RunPolicy.READ, RestRoutes.shown(owner.asText()),
            RestRoutes.shown(name.asText()), "repository"));
  }

  private ApiJudgement mutation(String route, List<Field> fields, Map<String, JsonNode> vars) {
    List<ApiAction> actions = new ArrayList<>();
    boolean writeToken = false;
    for (Field f : fields) {
      String name = f.getName();
      if (name.equals("__typename")) {
        continue;
      }
      if (f.getArguments().stream().map(Argument::getName).distinct().count()
          != f.getArguments().size()) {
        throw new Ambiguous();
      }
      Mapping m = MUTATIONS.get(name);
      if (m != null) {
        // Keyed by node ids, these name no repository: the run's own is the one named (the
        // token reaches no other but the attached ones).
        RepoSlug repo = policy.primary();
        ApiAction a = switch (m.kind()) {
          case OPEN_PR -> policy.act(ActionClass.OPEN_PULL_REQUEST, repo, name, m.what());
          case REVIEW -> policy.act(ActionClass.PUBLISH_REVIEW_OR_MERGE, repo, name, m.what());
          case MERGE -> policy.merge(repo, name, m.what());
          case TRACKER -> policy.act(ActionClass.WRITE_TRACKER, repo, name, m.what());
        };
        if (m.kind() != Kind.MERGE) {
          // Titles, bodies, comments: whatever text the mutation's arguments carry.
          ObjectNode args = JsonNodeFactory.instance.objectNode();
          for (Argument arg : f.getArguments()) {
            args.set(arg.getName(), value(arg.getValue(), vars));
          }
          a = a.saying(WhatItSays.ofMutation(args));
          actions.add(a);
          actions.addAll(policy.content(a.kind(), repo, name,
              ContentReaders.visibleText(args), List.of(a)));
        } else {
          actions.add(a);
        }
        continue;
      }
      // Ref moves name their repository by node id: like the mutations above they act on the
      // run's own repository, the one the judge reads and the only one the write token reaches.
      JsonNode input = argument(f, "input", vars);
      switch (name) {
        case "createCommitOnBranch" -> actions.addAll(commitOnBranch(input));
        case "createRef" -> actions.addAll(createRef(input));
        case "updateRefs" -> actions.addAll(updateRefs(input));
        case "updateRef" -> actions.addAll(updateRef(input));
        case "deleteRef" -> actions.addAll(policy.pushToUnnamedRef(policy.primary(),
            name, "deleting a ref named by its id", false));
        case "updatePullRequestBranch" -> actions.addAll(policy.pushToUnnamedRef(
            policy.primary(), name, "updating a pull request's branch", true));
        default -> actions.add(RunPolicy.denied(RunPolicy.UNKNOWN, null, name,
            "the GraphQL mutation " + RestRoutes.shown(name)
                + " is not one the boundary knows, so it is denied"));
      }
      writeToken |= Set.of("createCommitOnBranch", "createRef", "updateRefs", "updateRef",
          "deleteRef", "updatePullRequestBranch").contains(name);
    }
    if (actions.isEmpty()) {
      return new ApiJudgement(List.of(policy.read(null, "__typename")), false);
    }
    return new ApiJudgement(actions, writeToken);
  }

  /**
   * A commit made by GitHub on a branch's tip: a fast-forward of that branch, with the workflow
   * rule for the paths it adds or deletes, which the call names.
   */
  private List<ApiAction> commitOnBranch(JsonNode input) {
    String field = "createCommitOnBranch";
    JsonNode branch = input.path("branch");
    Optional<List<String>> paths = changedPaths(input.path("fileChanges"));
    Optional<ProposedContent> proposed = ContentReaders.commitOnBranch(input);
    if (!branch.isObject() || paths.isEmpty() || proposed.isEmpty()
        || !namesItsBranchOneWay(branch)) {
      return List.of(unreadable(field));
    }
    // A branch named by node id: the run's own repository, whose token alone the call gets.
    RepoSlug repo = policy.primary();
    JsonNode nameWithOwner = branch.get("repositoryNameWithOwner");
    JsonNode branchName = branch.get("branchName");
    List<ApiAction> out = new ArrayList<>();
    String ref;
    if (nameWithOwner != null && nameWithOwner.isTextual() && branchName != null
        && branchName.isTextual()) {
      String[] parts = nameWithOwner.asText().split("/", -1);
      if (parts.length != 2) {
        return List.of(unreadable(field));
      }
      Optional<RepoSlug> ours = policy.runRepository(parts[0], parts[1]);
      if (ours.isEmpty()) {
        return List.of(RunPolicy.otherRepository(RunPolicy.PUSH, RestRoutes.shown(parts[0]),
            RestRoutes.shown(parts[1]), field));
      }
      repo = ours.get();
      Optional<String> r = RestRoutes.branchRef(branchName.asText());
      if (r.isEmpty()) {
        return List.of(RunPolicy.denied(RunPolicy.PUSH, repo.toString(), field, field
            + ": the branch " + RestRoutes.shown(branchName.asText())
            + " is not a plain branch name, so it is denied"));
      }
      ref = r.get();
      out.addAll(policy.push(repo, ref, UpdateKind.UPDATE));
    } else if (branch.path("id").isTextual()) {
      // The branch is named by its node id: which ref is not known without a lookup.
      ref = field;
      out.addAll(policy.pushToUnnamedRef(repo, field, "committing to a branch named by its id",
          false));
    } else {
      return List.of(unreadable(field));
    }
    List<String> workflows = paths.get().stream().filter(RestRoutes::isWorkflowPath)
        .map(RestRoutes::shown).toList();
    if (!workflows.isEmpty() && !policy.readOnly()) {
      out.add(policy.workflowFiles(repo, ref, workflows));
    }
    out.set(0, out.get(0).saying("commits " + (proposed.get().files().isEmpty() ? "no files"
        : proposed.get().files()) + (paths.get().isEmpty() ? "" : "; changes "
        + paths.get().stream().map(RestRoutes::shown).toList())));
    out.addAll(policy.content(RunPolicy.PUSH, repo, ref, proposed.get(), out));
    return out;
  }

  /**
   * Whether a {@code CommittableBranch} names its branch by node id alone, or by repository and
   * name alone: with both, the judge would read the name while GitHub might commit to the ref the
   * id names (main, say), with the write token minted for the named repository.
   */
  private static boolean namesItsBranchOneWay(JsonNode branch) {
    Set<String> keys = new java.util.HashSet<>();
    branch.fields().forEachRemaining(e -> {
      if (!e.getValue().isNull()) { // an explicit null is GraphQL's "not given"
        keys.add(e.getKey());
      }
    });
    return keys.equals(Set.of("id")) || keys.equals(Set.of("repositoryNameWithOwner", "branchName"));
  }

  /** The paths of {@code fileChanges.additions} and {@code .deletions}; empty when unreadable. */
  private static Optional<List<String>> changedPaths(JsonNode fileChanges) {
    if (fileChanges.isMissingNode() || fileChanges.isNull()) {
      return Optional.of(List.of());
    }
    if (!fileChanges.isObject()) {
      return Optional.empty();
    }
    Set<String> paths = new LinkedHashSet<>();
    for (String list : List.of("additions", "deletions")) {
      JsonNode items = fileChanges.path(list);
      if (items.isMissingNode() || items.isNull()) {
        continue;
      }
      if (!items.isArray()) {
        return Optional.empty();
      }
      for (JsonNode item : items) {
        JsonNode path = item.path("path");
        if (!path.isTextual()) {
          return Optional.empty();
        }
        paths.add(path.asText());
      }
    }
    return Optional.of(List.copyOf(paths));
  }

  private List<ApiAction> createRef(JsonNode input) {
    JsonNode name = input.path("name");
    if (!name.isTextual() || !RestRoutes.validRef(name.asText())) {
      return List.of(unreadable("createRef"));
    }
    JsonNode oid = input.path("oid");
    if (!oid.isTextual()) {
      return List.of(unreadable("createRef"));
    }
    return policy.move(policy.primary(), name.asText(), UpdateKind.CREATE, oid.asText());
  }

  /** A ref named by its node id moved to {@code oid}: its commits judged as a push's. */
  private List<ApiAction> updateRef(JsonNode input) {
    JsonNode oid = input.path("oid");
    if (!oid.isTextual()) {
      return List.of(unreadable("updateRef"));
    }
    List<ApiAction> out = new ArrayList<>(policy.pushToUnnamedRef(policy.primary(),
        "updateRef", "updating a ref named by its id", false));
    out.addAll(policy.commitsBrought(policy.primary(), "updateRef", oid.asText(), out));
    return out;
  }

  /**
   * Several ref updates at once. An update with no old value may create or update its ref, so
   * it is judged as both; a zero new value deletes it.
   */
  private List<ApiAction> updateRefs(JsonNode input) {
    JsonNode updates = input.path("refUpdates");
    if (!updates.isArray() || updates.isEmpty()) {
      return List.of(unreadable("updateRefs"));
    }
    List<ApiAction> out = new ArrayList<>();
    for (JsonNode u : updates) {
      JsonNode name = u.path("name");
      JsonNode after = u.path("afterOid");
      JsonNode before = u.path("beforeOid");
      JsonNode force = u.path("force");
      if (!name.isTextual() || !RestRoutes.validRef(name.asText()) || !after.isTextual()
          || !(force.isMissingNode() || force.isNull() || force.isBoolean())
          || !(before.isMissingNode() || before.isNull() || before.isTextual())) {
        return List.of(unreadable("updateRefs"));
      }
      String ref = name.asText();
      if (zero(after.asText())) {
        out.addAll(policy.push(policy.primary(), ref, UpdateKind.DELETE));
      } else if (force.asBoolean(false)) {
        out.addAll(policy.move(policy.primary(), ref, UpdateKind.FORCE, after.asText()));
      } else if (!before.isTextual() || zero(before.asText())) {
        out.addAll(policy.push(policy.primary(), ref, UpdateKind.UPDATE));
        out.addAll(policy.move(policy.primary(), ref, UpdateKind.CREATE, after.asText()));
      } else {
        out.addAll(policy.move(policy.primary(), ref, UpdateKind.UPDATE, after.asText()));
      }
    }
    return out;
  }

  private static boolean zero(String oid) {
    return !oid.isEmpty() && oid.chars().allMatch(c -> c == '0');
  }

  /** An argument's value, from a literal or a variable; {@link NullNode} when absent. */
  private static JsonNode argument(Field f, String name, Map<String, JsonNode> vars) {
    JsonNode found = null;
    for (Argument a : f.getArguments()) {
      if (a.getName().equals(name)) {
        if (found != null) {
          throw new Ambiguous();
        }
        found = value(a.getValue(), vars);
      }
    }
    return found == null ? NullNode.instance : found;
  }

  /** A GraphQL value as JSON, variables substituted (an undeclared one is null). */
  static JsonNode value(Value<?> v, Map<String, JsonNode> vars) {
    JsonNodeFactory json = JsonNodeFactory.instance;
    if (v instanceof VariableReference ref) {
      return vars.getOrDefault(ref.getName(), NullNode.instance);
    }
    if (v instanceof StringValue s) {
      return json.textNode(s.getValue());
    }
    if (v instanceof BooleanValue b) {
      return json.booleanNode(b.isValue());
    }
    if (v instanceof IntValue i) {
      return json.numberNode(i.getValue());
    }
    if (v instanceof FloatValue fl) {
      return json.numberNode(fl.getValue());
    }
    if (v instanceof EnumValue e) {
      return json.textNode(e.getName());
    }
    if (v instanceof ArrayValue a) {
      ArrayNode out = json.arrayNode();
      a.getValues().forEach(item -> out.add(value(item, vars)));
      return out;
    }
    if (v instanceof ObjectValue o) {
      ObjectNode out = json.objectNode();
      for (ObjectField field : o.getObjectFields()) {
        if (out.has(field.getName())) {
          throw new Ambiguous();
        }
        out.set(field.getName(), value(field.getValue(), vars));
      }
      return out;
    }
    return NullNode.instance;
  }

  private static ApiAction unreadable(String field) {
    return RunPolicy.denied(RunPolicy.UNKNOWN, null, field, "the GraphQL mutation " + field
        + " has an input the boundary cannot read, so it is denied");
  }

  private static ApiJudgement denied(String route, String why) {
    return new ApiJudgement(List.of(RunPolicy.denied(RunPolicy.UNKNOWN, null, route,
        route + " is denied: " + why)), false);
  }
}
