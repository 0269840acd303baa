package dev.pushgate.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.pushgate.testkit.RunningAppliance;
import java.io.Reader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

/**
 * A write token for the direct baseline, minted the way a GitHub App mints one: an App JWT
 * (RS256, iss "1", iat now-60, exp now+540) signed with the local forge's App key, exchanged at
 * {@code POST /forge/api/v3/app/installations/{id}/access_tokens}.
 */
final class ForgeToken {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().proxy(HttpClient.Builder.NO_PROXY).build();

  private ForgeToken() {}

  /** Mints a {@code contents: write} token for the named repositories (names alone, as GitHub). */
  static String mintWrite(RunningAppliance app, List<String> repositoryNames) throws Exception {
    return mint(app, repositoryNames, java.util.Map.of("contents", "write", "metadata", "read"));
  }

  /** Mints a token with the given permissions for the named repositories. */
  static String mint(RunningAppliance app, List<String> repositoryNames,
      java.util.Map<String, String> permissions) throws Exception {
    PrivateKey key = readPkcs1(app.dataDir.resolve("forge-app.pem"));
    Instant now = Instant.now();
    JWTClaimsSet claims = new JWTClaimsSet.Builder()
        .issuer("1")
        .issueTime(Date.from(now.minusSeconds(60)))
        .expirationTime(Date.from(now.plusSeconds(540)))
        .build();
    SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.RS256), claims);
    jwt.sign(new RSASSASigner(key));

    ObjectNode body = JSON.createObjectNode();
    repositoryNames.forEach(body.putArray("repositories")::add);
    ObjectNode perms = body.putObject("permissions");
    permissions.forEach(perms::put);
    // The forge has one installation per owner, as GitHub does: look it up like the broker.
    HttpResponse<String> inst = HTTP.send(HttpRequest.newBuilder(
            URI.create(app.base() + "/forge/api/v3/repos/acme/" + repositoryNames.get(0)
                + "/installation"))
        .header("Authorization", "Bearer " + jwt.serialize())
        .header("Accept", "application/vnd.github+json").GET().build(),
        HttpResponse.BodyHandlers.ofString());
    long installation = JSON.readTree(inst.body()).get("id").asLong();
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(app.base()
            + "/forge/api/v3/app/installations/" + installation + "/access_tokens"))
        .header("Authorization", "Bearer " + jwt.serialize())
        .header("Accept", "application/vnd.github+json")
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))
        .build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 201) {
      throw new IllegalStateException("the forge refused a write token (" + r.statusCode() + "): "
          + r.body());
    }
    JsonNode answer = JSON.readTree(r.body());
    return answer.get("token").asText();
  }

  private static PrivateKey readPkcs1(Path pem) throws Exception {
    try (Reader r = Files.newBufferedReader(pem, StandardCharsets.US_ASCII);
        PEMParser parser = new PEMParser(r)) {
      Object o = parser.readObject();
      if (!(o instanceof PEMKeyPair pair)) {
        throw new IllegalStateException(pem + " is not a PKCS#1 RSA key pair");
      }
      return new JcaPEMKeyConverter().getKeyPair(pair).getPrivate();
    }
  }

  /**
   * A git config with only a credential helper answering {@code x-access-token} and the token in
   * {@code $GH_TOKEN}: no gateway rewrite, so pushes go straight to the forge.
   */
  static Path directGitConfig(Path dir) throws Exception {
    Path config = dir.resolve("direct.gitconfig");
    Files.writeString(config, "[credential]\n\thelper = \"!f() { test \\\"$1\\\" = get || exit 0;"
        + " echo username=x-access-token; echo password=$GH_TOKEN; }; f\"\n");
    return config;
  }
}
