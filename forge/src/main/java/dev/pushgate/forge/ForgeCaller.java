package dev.pushgate.forge;

import jakarta.servlet.http.HttpServletRequest;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

/**
 * Who called the forge's repository API: the installation token the request presented (as
 * {@code token}, {@code Bearer} or a Basic password, as GitHub takes them) and its grant when
 * it is live. The token itself is kept only as its SHA-256.
 */
record ForgeCaller(String tokenSha256, Optional<ForgeTokens.Grant> grant) {
  /** The login GitHub shows for what an App's installation token does. */
  static final String BOT_LOGIN = "pushgate-local-forge[bot]";
  /** No caller: what a nested object is shown to when the viewer does not matter. */
  static final ForgeCaller NOBODY = new ForgeCaller(null, Optional.empty());

  static ForgeCaller of(HttpServletRequest req, ForgeTokens tokens) throws SQLException {
    String token = tokenOf(req.getHeader("Authorization"));
    if (token == null) {
      return new ForgeCaller(null, Optional.empty());
    }
    return new ForgeCaller(ForgeTokens.hash(token), tokens.check(token));
  }

  boolean presented() {
    return tokenSha256 != null;
  }

  String credential() {
    return !presented() ? "none" : grant.isPresent() ? "installation-token" : "unknown-token";
  }

  /** Whether the token is scoped to the repository at all: if not, it does not exist. */
  boolean sees(ForgeRepositories.ForgeRepo repo) {
    return grant.isPresent() && grant.get().repositoryIds().contains(repo.id());
  }

  /** Whether any of {@code permissions} is granted at {@code level} or above. */
  boolean may(ForgeRepositories.ForgeRepo repo, String level, String... permissions) {
    if (!sees(repo)) {
      return false;
    }
    for (String p : permissions) {
      String granted = grant.get().permissions().get(p);
      if ("write".equals(granted) || "read".equals(level) && "read".equals(granted)) {
        return true;
      }
    }
    return false;
  }

  private static String tokenOf(String auth) {
    if (auth == null) {
      return null;
    }
    for (String scheme : List.of("token ", "Bearer ")) {
      if (auth.regionMatches(true, 0, scheme, 0, scheme.length())) {
        String t = auth.substring(scheme.length()).strip();
        return t.isEmpty() ? null : t;
      }
    }
    if (auth.regionMatches(true, 0, "Basic ", 0, 6)) {
      try {
        String decoded = new String(Base64.getDecoder().decode(auth.substring(6).strip()),
            StandardCharsets.UTF_8);
        int colon = decoded.indexOf(':');
        return colon < 0 || colon == decoded.length() - 1 ? null : decoded.substring(colon + 1);
      } catch (IllegalArgumentException e) {
        return null;
      }
    }
    return null;
  }
}
