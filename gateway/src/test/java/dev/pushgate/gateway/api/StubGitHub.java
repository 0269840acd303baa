package dev.pushgate.gateway.api;

import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import java.net.URI;

/** GitHub's API as the boundary tests stand it up: WireMock on 127.0.0.1, one answer to all. */
final class StubGitHub {
  private StubGitHub() {}

  /** Started, answering every request with {@code answer}; the caller stops it. */
  static WireMockServer answeringAll(ResponseDefinitionBuilder answer) {
    WireMockServer github = new WireMockServer(options().dynamicPort().bindAddress("127.0.0.1"));
    github.start();
    github.stubFor(any(anyUrl()).willReturn(answer));
    return github;
  }

  /** The boundary's upstream sending API calls and uploads alike to {@code github}. */
  static ApiUpstream upstream(WireMockServer github) {
    return new ApiUpstream(URI.create(github.baseUrl()),
        URI.create(github.baseUrl() + "/uploads"), null);
  }
}
