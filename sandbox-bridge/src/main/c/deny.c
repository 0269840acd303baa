/* The deny rules (denyfs.h): which names and paths, relative to the mount and starting with /, no
 * write may reach; and the refusal lines. */
#include "denyfs.h"

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>

const char *deny_globs[MAX_PATTERNS];
int n_deny_globs;
const char *deny_paths[MAX_PATTERNS];
int n_deny_paths;
const char *host_paths[MAX_PATTERNS];
int n_host_paths;
const char *dependency_dirs[MAX_PATTERNS];
int n_dependency_dirs;
const char *judged_configs[MAX_PATTERNS];
int n_judged_configs;
pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

static const char *skip_slashes(const char *s) {
  while (*s == '/') {
    s++;
  }
  return s;
}

/* One path component against one pattern component: * and ? never cross a /. */
static int component_matches(const char *pattern, size_t plen, const char *name, size_t nlen) {
  char p[NAME_MAX + 1], n[NAME_MAX + 1];
  if (plen > NAME_MAX || nlen > NAME_MAX) {
    return 0;
  }
  memcpy(p, pattern, plen);
  p[plen] = 0;
  memcpy(n, name, nlen);
  n[nlen] = 0;
  return fnmatch(p, n, FNM_NOESCAPE) == 0;
}

/* A protected-path pattern (as PathGlob): a component that is exactly ** matches any number. */
static int path_matches(const char *pattern, const char *path) {
  pattern = skip_slashes(pattern);
  path = skip_slashes(path);
  if (*pattern == 0) {
    return *path == 0;
  }
  const char *pend = strchrnul(pattern, '/');
  size_t plen = (size_t) (pend - pattern);
  if (plen == 2 && pattern[0] == '*' && pattern[1] == '*') {
    for (const char *p = path;;) {
      if (path_matches(pend, p)) {
        return 1;
      }
      if (*p == 0) {
        return 0;
      }
      p = skip_slashes(strchrnul(p, '/'));
    }
  }
  if (*path == 0) {
    return 0;
  }
  const char *nend = strchrnul(path, '/');
  if (!component_matches(pattern, plen, path, (size_t) (nend - path))) {
    return 0;
  }
  return path_matches(pend, nend);
}

/* One spelling of a name against the deny globs, as the content rules judge a list of globs
 * (ContentGlob.listMatches): a glob matches it and no exception (a glob written with a leading
 * "!") does, whatever their order, ignoring case. FNM_CASEFOLD folds ASCII only (the daemon keeps
 * the C locale); checked_out folds the two other letters Unicode folds to ASCII ones. */
static int spelling_matches_globs(const char *name) {
  int in = 0, excepted = 0;
  for (int i = 0; i < n_deny_globs; i++) {
    int exception = deny_globs[i][0] == '!';
    if (fnmatch(deny_globs[i] + exception, name, FNM_NOESCAPE | FNM_CASEFOLD) == 0) {
      excepted |= exception;
      in |= !exception;
    }
  }
  return in && !excepted;
}

/* Whether the UTF-8 sequence at S is a code point HFS+ ignores in names (git's is_hfs_dotgit
 * list: zero-width joiners, direction marks, BOM); its length then, else 0. */
static size_t hfs_ignored(const unsigned char *s) {
  if (s[0] == 0xef && s[1] == 0xbb && s[2] == 0xbf) {
    return 3; /* U+FEFF */
  }
  if (s[0] != 0xe2) {
    return 0;
  }
  if ((s[1] == 0x80 && ((s[2] >= 0x8c && s[2] <= 0x8f) || (s[2] >= 0xaa && s[2] <= 0xae)))
      || (s[1] == 0x81 && s[2] >= 0xaa && s[2] <= 0xaf)) {
    return 3; /* U+200C..200F, U+202A..202E, U+206A..206F */
  }
  return 0;
}

/* NAME as a checkout on another disk may spell it, as ContentGlob.asCheckedOut: without the code
 * points HFS+ ignores, without trailing spaces and dots (Windows drops them), with the Kelvin sign
 * and the long s as the ASCII letters case folding makes them. Not NFC: an ASCII glob matches no
 * other composed name. 0 when the name is too long. */
static int checked_out(const char *name, char *out, size_t size) {
  size_t n = 0;
  for (const unsigned char *p = (const unsigned char *) name; *p;) {
    size_t skip = hfs_ignored(p);
    char c = 0;
    if (skip == 0 && p[0] == 0xe2 && p[1] == 0x84 && p[2] == 0xaa) {
      skip = 3, c = 'k'; /* U+212A KELVIN SIGN */
    } else if (skip == 0 && p[0] == 0xc5 && p[1] == 0xbf) {
      skip = 2, c = 's'; /* U+017F LATIN SMALL LETTER LONG S */
    }
    if (skip == 0) {
      skip = 1, c = (char) *p;
    }
    p += skip;
    if (c != 0) {
      if (n + 1 >= size) {
        return 0;
      }
      out[n++] = c;
    }
  }
  size_t end = n;
  while (end > 0 && (out[end - 1] == ' ' || out[end - 1] == '.')) {
    end--;
  }
  out[end == 0 ? n : end] = 0;
  return 1;
}

/* Whether NAME is denied by the deny globs, as written or as checked out: each spelling judged
 * whole, so an exception covering one spelling does not excuse the other. */
int name_matches_glob(const char *name) {
  char seen[NAME_MAX * 2 + 1];
  if (n_deny_globs == 0) {
    return 0;
  }
  return spelling_matches_globs(name)
      || !checked_out(name, seen, sizeof seen) || spelling_matches_globs(seen);
}

/* Whether a protected-path pattern could match a path strictly below PATH. */
static int pattern_reaches_below(const char *pattern, const char *path) {
  pattern = skip_slashes(pattern);
  path = skip_slashes(path);
  if (*pattern == 0) {
    return 0;
  }
  if (*path == 0) {
    return 1;
  }
  const char *pend = strchrnul(pattern, '/');
  size_t plen = (size_t) (pend - pattern);
  if (plen == 2 && pattern[0] == '*' && pattern[1] == '*') {
    return 1;
  }
  const char *nend = strchrnul(path, '/');
  if (!component_matches(pattern, plen, path, (size_t) (nend - path))) {
    return 0;
  }
  return pattern_reaches_below(pend, nend);
}

/* PATH (relative to the mount) under each spelling of the mount's host path, in FULL; 0 when too
 * long to judge. */
static int host_spelling(int h, const char *path, char *full, size_t size) {
  int n = snprintf(full, size, "%s%s", host_paths[h], strcmp(path, "/") == 0 ? "" : path);
  return n >= 0 && (size_t) n < size;
}

/* The protected-path patterns as each spelling of the mount sees them, worked out once at start
 * (prepare_patterns) so that a lookup does not match the mount's own components again for every
 * pattern and every prefix of its path. For each spelling H and pattern I, rest[H][I] is:
 * - what remains of the pattern below the mount, when the pattern's components down to the
 *   mount's all match the mount's (none of them **): matching a path below the mount against it
 *   is, component for component, matching the whole spelling against the pattern;
 * - NULL with whole[H][I] clear when a component does not match the mount's: no path of the
 *   mount (nor the mount, nor a directory above it) can match the pattern;
 * - NULL with whole[H][I] set otherwise (a ** down to the mount's depth, a pattern naming the
 *   mount or a directory above it): judged on the whole spelling, as before.
 * Exact: the same paths are denied; only work that could not change the answer is skipped. */
static const char *rest_of[MAX_PATTERNS][MAX_PATTERNS];
static unsigned char whole[MAX_PATTERNS][MAX_PATTERNS];

static void prepare_pattern(int h, int i) {
  const char *p = deny_paths[i], *q = host_paths[h];
  for (;;) {
    p = skip_slashes(p);
    q = skip_slashes(q);
    if (*q == 0) {
      rest_of[h][i] = *p == 0 ? NULL : p;
      whole[h][i] = *p == 0;
      return;
    }
    const char *pend = strchrnul(p, '/'), *qend = strchrnul(q, '/');
    size_t plen = (size_t) (pend - p);
    if (*p == 0 || (plen == 2 && p[0] == '*' && p[1] == '*')) {
      whole[h][i] = 1;
      return;
    }
    if (!component_matches(p, plen, q, (size_t) (qend - q))) {
      return; /* never: rest_of NULL, whole clear */
    }
    p = pend;
    q = qend;
  }
}

void prepare_patterns(void) {
  for (int h = 0; h < n_host_paths; h++) {
    for (int i = 0; i < n_deny_paths; i++) {
      prepare_pattern(h, i);
    }
  }
}

/* Whether PATH (relative to the mount) or a directory above it, or the mount or one above it,
 * matches pattern I seen from spelling H (prepare_patterns). */
static int matches_seen(int h, int i, const char *path) {
  if (rest_of[h][i] == NULL && !whole[h][i]) {
    return 0;
  }
  char full[PATH_MAX * 2];
  const char *from = rest_of[h][i] != NULL ? "" : host_paths[h];
  int n = snprintf(full, sizeof full, "%s%s", from, strcmp(path, "/") == 0 ? "" : path);
  if (n < 0 || (size_t) n >= sizeof full) {
    return 1; /* too long to judge: protected */
  }
  const char *pattern = rest_of[h][i] != NULL ? rest_of[h][i] : deny_paths[i];
  size_t len = strlen(full);
  for (size_t end = 0; end <= len; end++) {
    if (end < len && full[end] != '/') {
      continue;
    }
    char c = full[end];
    full[end] = 0;
    int hit = path_matches(pattern, full);
    full[end] = c;
    if (hit) {
      return 1;
    }
  }
  return 0;
}

/* Whether HOLDS is true of PATH (relative to the mount) for some spelling of the mount and some
 * protected-path pattern: HOLDS is given the spelling H, the pattern I, PATH and PATH under
 * spelling H. A path too long to judge counts as held. */
static int any_pattern(const char *path,
    int (*holds)(int h, int i, const char *path, const char *full)) {
  char full[PATH_MAX * 2];
  for (int h = 0; h < n_host_paths; h++) {
    if (!host_spelling(h, path, full, sizeof full)) {
      return 1;
    }
    for (int i = 0; i < n_deny_paths; i++) {
      if (holds(h, i, path, full)) {
        return 1;
      }
    }
  }
  return 0;
}

static int pattern_matches_seen(int h, int i, const char *path, const char *full) {
  (void) full;
  return matches_seen(h, i, path);
}

/* Whether PATH or a directory above it matches a protected-path pattern: a pattern protects what
 * it names and everything below, as a protected path given literally does (bubblewrap binds it
 * read-only whole). A path too long to judge is protected. */
int path_matches_pattern(const char *path) {
  return any_pattern(path, pattern_matches_seen);
}

static int pattern_reaches_below_spelling(int h, int i, const char *path, const char *full) {
  (void) h;
  (void) path;
  return pattern_reaches_below(deny_paths[i], full);
}

/* Whether a protected-path pattern could match something below PATH (relative to the mount): a
 * directory or symlink put there, or taken away from there, would carry files into or out of the
 * pattern's reach. */
int protected_below(const char *path) {
  return any_pattern(path, pattern_reaches_below_spelling);
}

/* Whether a component of PATH (relative to the mount) is a dependency tree's directory, the last
 * one counted only when WITH_LAST: a file below one was put there by a package manager, and its
 * name is not judged by the globs. Matched exactly: a name that only looks like one is no tree. */
int in_dependency_tree(const char *path, int with_last) {
  for (const char *c = path; *c;) {
    while (*c == '/') {
      c++;
    }
    const char *end = strchrnul(c, '/');
    if (end == c || (*end == 0 && !with_last)) {
      return 0;
    }
    for (int i = 0; i < n_dependency_dirs; i++) {
      if (strlen(dependency_dirs[i]) == (size_t) (end - c)
          && strncmp(dependency_dirs[i], c, (size_t) (end - c)) == 0) {
        return 1;
      }
    }
    c = end;
  }
  return 0;
}

/* Whether the file at PATH (relative to the mount, starting with /) may not be written. */
int denied(const char *path) {
  return name_matches_glob(base_name(path)) || path_matches_pattern(path);
}

/* Whether PATH (relative to the mount) is a repository config only the launcher's judgement
 * writes. */
int is_judged_config(const char *path) {
  for (int i = 0; i < n_judged_configs; i++) {
    if (strcmp(judged_configs[i], path) == 0) {
      return 1;
    }
  }
  return 0;
}

/* PATH into LINE from N on, every byte that is not printable ASCII as \xNN, so that a line of ours
 * ends where it says. Returns the new length. */
size_t put_escaped(char *line, size_t n, size_t size, const char *path) {
  for (const unsigned char *p = (const unsigned char *) path; *p && n < size - 6; p++) {
    if (*p < 0x20 || *p >= 0x7f || *p == '\\') {
      n += (size_t) snprintf(line + n, size - n, "\\x%02x", *p);
    } else {
      line[n++] = (char) *p;
    }
  }
  return n;
}

/* Reports a refusal: one line, the path escaped (put_escaped). */
int report(const char *path) {
  char line[PATH_MAX * 4 + 32];
  size_t n = (size_t) snprintf(line, sizeof line, "file-write* ");
  n = put_escaped(line, n, sizeof line, path);
  line[n++] = '\n';
  pthread_mutex_lock(&out_lock);
  fwrite(line, 1, n, stdout);
  fflush(stdout);
  pthread_mutex_unlock(&out_lock);
  return EACCES;
}

/* The launcher holds a command's error line until it knows whether this layer reported the
 * refusal behind it. A refusal is reported before it is replied to, so it is written here before
 * the command can print its error: a "synced N" written after the launcher read that error line
 * comes after the report on the one stream, and the launcher, reading it, has the answer. 1 when
 * LINE was a sync. */
int take_sync(const char *line) {
  const char *id = line + 5;
  if (strncmp(line, "sync ", 5) != 0 || *id == 0 || strspn(id, "0123456789") != strlen(id)) {
    return 0;
  }
  pthread_mutex_lock(&out_lock);
  fprintf(stdout, "synced %s\n", id);
  fflush(stdout);
  pthread_mutex_unlock(&out_lock);
  return 1;
}

