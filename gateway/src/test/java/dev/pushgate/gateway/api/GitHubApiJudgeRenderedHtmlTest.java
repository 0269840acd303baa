package dev.pushgate.gateway.api;

import static dev.pushgate.gateway.api.ApiJudgeFixture.chat;
import static dev.pushgate.gateway.api.ApiJudgeFixture.graphQl;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.policy.Decision;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The judge refuses GitHub's rendered HTML in every spelling, and nothing else for it. */
class GitHubApiJudgeRenderedHtmlTest {
  private static final String REFUSED = "pushgate does not pass GitHub's rendered HTML";

  @ParameterizedTest
  @ValueSource(strings = {"application/vnd.github.html", "application/vnd.github.html+json",
      "application/vnd.github.full", "application/vnd.github.v3.full+json",
      "APPLICATION/VND.GITHUB.V3.HTML+JSON", " application/vnd.github.full+json ; q=0.9",
      "application/json, application/vnd.github.full+json", "text/html",
      "application/vnd.github.squirrel-girl-preview.html+json"})
  void aRestCallAskingForRenderedHtmlIsDeniedOnAnyRoute(String accept) {
    for (String path : new String[] {"/repos/acme/widget/issues/1",
        "/repos/acme/widget/pulls/1/comments", "/repos/acme/widget/readme",
        "/repos/acme/widget/contents/README.md"}) {
      ApiJudgement j = chat("").judge(new ApiCall("GET", ApiHosts.API, path, "", "", null,
          accept));
      assertThat(j.decision()).as(accept + " " + path).isEqualTo(Decision.DENY);
      assertThat(j.reason()).contains(REFUSED);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "application/vnd.github+json", "application/json", "*/*",
      "application/vnd.github.raw+json", "application/vnd.github.v3.diff",
      "application/vnd.github.merge-info-preview+json, application/vnd.github.nebula-preview"})
  void otherMediaTypesAreJudgedByTheirRoute(String accept) {
    ApiJudgement j = chat("").judge(new ApiCall("GET", ApiHosts.API,
        "/repos/acme/widget/issues/1", "", "", null, accept));
    assertThat(j.decision()).as(accept).isEqualTo(Decision.ALLOW);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "{ repository(owner: \\\"acme\\\", name: \\\"widget\\\") { issue(number: 1) { bodyHTML } } }",
      "query { viewer { ... on User { bio: bioHTML } } }",
      "query Q { repository(owner: \\\"acme\\\", name: \\\"widget\\\") { ...R } }"
          + " fragment R on Repository { object(expression: \\\"HEAD\\\") { ... on Commit"
          + " { messageBodyHTML } } }",
      "query { node(id: \\\"X\\\") { ... on Release { descriptionHTML } } }",
      "query { node(id: \\\"X\\\") { ... on Gist { files { text } } ... on Repository"
          + " { shortDescriptionHTML } } }",
      "query { node(id: \\\"X\\\") { ... on RepositoryTopic { topic { name } } ... on Discussion"
          + " { comments(first: 1) { nodes { contentHTML: body bodyhtml } } } } }",
      "mutation { addComment(input: {subjectId: \\\"I\\\", body: \\\"hi\\\"})"
          + " { commentEdge { node { bodyHTML } } } }"})
  void aGraphQlDocumentSelectingAnHtmlFieldIsDeniedWhereverItIs(String query) {
    ApiJudgement j = chat("write-tracker: allow").judge(graphQl("{\"query\":\"" + query + "\"}"));
    assertThat(j.decision()).as(query).isEqualTo(Decision.DENY);
    assertThat(j.reason()).contains(REFUSED);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "query { repository(owner: \\\"acme\\\", name: \\\"widget\\\") { issue(number: 1)"
          + " { body title } description: description } }",
      "query { repository(owner: \\\"acme\\\", name: \\\"widget\\\") { bodyHTML: description } }"})
  void theMarkdownFieldsAreJudgedAsBefore(String query) {
    ApiJudgement j = chat("").judge(graphQl("{\"query\":\"" + query + "\"}"));
    assertThat(j.decision()).as(query).isEqualTo(Decision.ALLOW);
  }
}
