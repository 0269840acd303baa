package dev.pushgate.forge;

import static dev.pushgate.forge.TestForge.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.http.HttpResponse;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.junit.jupiter.api.Test;

/** The forge's stand-in of GitHub's GraphQL API, asked over HTTP with installation tokens. */
class ForgeGraphqlTest extends WidgetForgeFixture {
  private static final String GRAPHQL = "/forge/api/v3/graphql";

  private HttpResponse<String> post(String token, String query) throws Exception {
    ObjectNode body = TestForge.JSON.createObjectNode();
    body.put("query", query);
    return forge.send("POST", GRAPHQL, token == null ? null : "bearer " + token, body.toString());
  }

  private JsonNode ask(String token, String query) throws Exception {
    HttpResponse<String> r = post(token, query);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return json(r);
  }

  private String repoId() {
    return "R_" + widget.id();
  }

  private long open(String branch) throws Exception {
    forge.branch(widget, branch, branch + ".txt", branch + "\n");
    JsonNode r = ask(writer, "mutation{createPullRequest(input:{repositoryId:\"" + repoId()
        + "\",baseRefName:\"main\",headRefName:\"" + branch + "\",title:\"" + branch
        + "\",body:\"b\"}){pullRequest{number id state}}}");
    assertThat(r.path("errors").isMissingNode()).as(r.toString()).isTrue();
    return r.at("/data/createPullRequest/pullRequest/number").asLong();
  }

  @Test
  void noTokenOrABadOneIsRefusedBeforeTheQuery() throws Exception {
    HttpResponse<String> none = post(null, "{viewer{login}}");
    HttpResponse<String> bad = post("ghs_" + "z".repeat(36), "{viewer{login}}");

    assertThat(none.statusCode()).isEqualTo(401);
    assertThat(json(none).get("message").asText())
        .isEqualTo("This endpoint requires you to be authenticated.");
    assertThat(bad.statusCode()).isEqualTo(401);
    assertThat(json(bad).get("message").asText()).isEqualTo("Bad credentials");
  }

  @Test
  void theRepositoryIsResolvedWithItsDefaultBranchAndTheViewersPermission() throws Exception {
    JsonNode r = ask(reader, "{repository(owner:\"acme\",name:\"widget\"){id nameWithOwner"
        + " viewerPermission defaultBranchRef{name}}}");

    assertThat(r.at("/data/repository/id").asText()).isEqualTo(repoId());
    assertThat(r.at("/data/repository/nameWithOwner").asText()).isEqualTo("acme/widget");
    assertThat(r.at("/data/repository/viewerPermission").asText()).isEqualTo("READ");
    assertThat(r.at("/data/repository/defaultBranchRef/name").asText()).isEqualTo("main");
  }

  @Test
  void aRepositoryTheTokenIsNotScopedToCannotBeResolved() throws Exception {
    JsonNode r = ask(writer, "{repository(owner:\"acme\",name:\"other\"){id}}");

    assertThat(r.at("/data/repository").isNull()).isTrue();
    assertThat(r.at("/errors/0/type").asText()).isEqualTo("NOT_FOUND");
    assertThat(r.at("/errors/0/message").asText())
        .isEqualTo("Could not resolve to a Repository with the name 'acme/other'.");
  }

  @Test
  void aFieldOutsideTheSchemaIsAValidationError() throws Exception {
    JsonNode r = ask(writer, "{repository(owner:\"acme\",name:\"widget\"){noSuchField}}");

    assertThat(r.at("/errors/0/message").asText()).contains("noSuchField");
    assertThat(r.path("data").isMissingNode() || r.path("data").isNull()).isTrue();
  }

  @Test
  void createPullRequestOpensOneThatListsAndReadsBack() throws Exception {
    long n = open("gql-list");

    JsonNode list = ask(reader, "{repository(owner:\"acme\",name:\"widget\"){pullRequests("
        + "states:[OPEN],headRefName:\"gql-list\",first:10){totalCount nodes{number title"
        + " headRefName baseRefName state}}}}");
    JsonNode one = ask(reader, "{repository(owner:\"acme\",name:\"widget\"){pullRequest(number:"
        + n + "){number headRefOid mergeable}}}");

    assertThat(list.at("/data/repository/pullRequests/totalCount").asInt()).isEqualTo(1);
    assertThat(list.at("/data/repository/pullRequests/nodes/0/number").asLong()).isEqualTo(n);
    assertThat(list.at("/data/repository/pullRequests/nodes/0/state").asText()).isEqualTo("OPEN");
    assertThat(one.at("/data/repository/pullRequest/headRefOid").asText())
        .isEqualTo(forge.tip(widget, "gql-list"));
    assertThat(one.at("/data/repository/pullRequest/mergeable").asText()).isEqualTo("MERGEABLE");
  }

  @Test
  void createPullRequestFromABranchThatDoesNotExistIsUnprocessable() throws Exception {
    JsonNode r = ask(writer, "mutation{createPullRequest(input:{repositoryId:\"" + repoId()
        + "\",baseRefName:\"main\",headRefName:\"nope\",title:\"t\"}){pullRequest{number}}}");

    assertThat(r.at("/errors/0/type").asText()).isEqualTo("UNPROCESSABLE");
    assertThat(r.at("/errors/0/message").asText())
        .isEqualTo("Head sha can't be blank, Head ref must be a branch");
  }

  @Test
  void mergePullRequestMergesInTheBareRepository() throws Exception {
    long n = open("gql-merge");
    String head = forge.tip(widget, "gql-merge");
    String base = forge.tip(widget, "main");

    JsonNode r = ask(writer, "mutation{mergePullRequest(input:{pullRequestId:\"PR_" + widget.id()
        + "_" + n + "\"}){pullRequest{number state merged mergeCommit{oid}}}}");

    assertThat(r.path("errors").isMissingNode()).as(r.toString()).isTrue();
    assertThat(r.at("/data/mergePullRequest/pullRequest/state").asText()).isEqualTo("MERGED");
    String merge = r.at("/data/mergePullRequest/pullRequest/mergeCommit/oid").asText();
    assertThat(forge.tip(widget, "main")).isEqualTo(merge);
    try (Repository git = ForgeCommits.open(widget); RevWalk walk = new RevWalk(git)) {
      RevCommit c = walk.parseCommit(git.resolve(merge));
      assertThat(c.getParents()).extracting(p -> p.name()).containsExactly(base, head);
    }
    JsonNode again = ask(writer, "mutation{mergePullRequest(input:{pullRequestId:\"PR_"
        + widget.id() + "_" + n + "\"}){pullRequest{number}}}");
    assertThat(again.at("/errors/0/message").asText()).isEqualTo("Pull Request is not mergeable");
  }

  @Test
  void mergePullRequestNeedsContentsWrite() throws Exception {
    long n = open("gql-guarded");
    String main = forge.tip(widget, "main");

    JsonNode r = ask(reader, "mutation{mergePullRequest(input:{pullRequestId:\"PR_" + widget.id()
        + "_" + n + "\"}){pullRequest{number}}}");

    assertThat(r.at("/errors/0/type").asText()).isEqualTo("FORBIDDEN");
    assertThat(r.at("/errors/0/message").asText())
        .isEqualTo("Resource not accessible by integration");
    assertThat(r.at("/data/mergePullRequest").isNull()).isTrue();
    assertThat(forge.tip(widget, "main")).isEqualTo(main);
  }

  @Test
  void aPullRequestOfARepositoryTheTokenIsNotScopedToCannotBeResolved() throws Exception {
    String otherToken = forge.token("{\"contents\":\"write\"}", "other");

    JsonNode r = ask(otherToken, "mutation{mergePullRequest(input:{pullRequestId:\"PR_"
        + widget.id() + "_1\"}){pullRequest{number}}}");

    assertThat(r.at("/errors/0/type").asText()).isEqualTo("NOT_FOUND");
  }

  @Test
  void addCommentCommentsOnThePullRequest() throws Exception {
    long n = open("gql-comment");

    JsonNode r = ask(reader, "mutation{addComment(input:{subjectId:\"PR_" + widget.id() + "_" + n
        + "\",body:\"nice\"}){commentEdge{node{body author{login}}}}}");
    JsonNode read = ask(reader, "{repository(owner:\"acme\",name:\"widget\"){pullRequest(number:"
        + n + "){comments(first:10){totalCount nodes{body}}}}}");

    assertThat(r.at("/data/addComment/commentEdge/node/body").asText()).isEqualTo("nice");
    assertThat(read.at("/data/repository/pullRequest/comments/totalCount").asInt()).isEqualTo(1);
    assertThat(read.at("/data/repository/pullRequest/comments/nodes/0/body").asText())
        .isEqualTo("nice");
  }
}
