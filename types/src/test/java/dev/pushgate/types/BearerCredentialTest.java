package dev.pushgate.types;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BearerCredentialTest {
  @Test
  void aBearerHeaderCarriesItsCredentialWhateverTheSchemesCase() {
    assertThat(BearerCredential.of("Bearer abc")).contains("abc");
    assertThat(BearerCredential.of("bEARER  abc ")).contains("abc");
  }

  @Test
  void anotherSchemeOrNothingAfterTheSchemeCarriesNone() {
    assertThat(BearerCredential.of(null)).isEmpty();
    assertThat(BearerCredential.of("Bearer ")).isEmpty();
    assertThat(BearerCredential.of("Bearer    ")).isEmpty();
    assertThat(BearerCredential.of("Basic YTpi")).isEmpty();
    assertThat(BearerCredential.of("Bearerabc")).isEmpty();
    assertThat(BearerCredential.of("token abc")).isEmpty();
  }

  @Test
  void githubsTokenSchemeIsTakenOnlyWhereAsked() {
    assertThat(BearerCredential.ofBearerOrToken("token abc")).contains("abc");
    assertThat(BearerCredential.ofBearerOrToken("TOKEN abc")).contains("abc");
    assertThat(BearerCredential.ofBearerOrToken("Bearer abc")).contains("abc");
    assertThat(BearerCredential.ofBearerOrToken("token ")).isEmpty();
    assertThat(BearerCredential.ofBearerOrToken("Basic YTpi")).isEmpty();
  }
}
