/*
 * pushgate-denyfs: a FUSE file system layered over one writable mount of a sandboxed run. It passes
 * every operation through to the directory underneath, except that it refuses (EACCES) every
 * write to a denied name: creating, opening for write, truncating, renaming onto or away from,
 * hard-linking, symlinking, removing or changing the attributes of a file whose name matches the
 * deny globs (.env, .env.*, *.key, ... but not the exceptions, "!.env.example"; as the content
 * rules match them) or whose host path matches a protected-path pattern. A name the globs deny
 * is written all the same below a dependency tree (--dependency-dir: site-packages, node_modules),
 * where a package manager puts what a package ships; no directory is carried out of one. Reading
 * stays allowed. Each refusal is one line on standard output: "file-write* RELATIVE/PATH".
 *
 * It runs outside the sandbox, as the launcher's user (root when bwrap is started as a user id of
 * its own: then allow_other, and files it creates are given to the caller). See docs/sandbox.md,
 * "Name-based write denies on Linux".
 *
 * Built on libfuse's low-level API in the manner of libfuse's passthrough_hp example: the kernel
 * names files by inode, and the daemon keeps, for every inode the kernel knows, an O_PATH
 * descriptor of the file underneath. A request is served on that descriptor (fstat, openat of one
 * name, /proc/self/fd/N), never by resolving a path again. Every descriptor in the table was
 * opened by one name (never "." or "..", never containing "/") relative to its parent's descriptor
 * with O_NOFOLLOW, starting from the source directory: no symlink is ever followed, so one swapped
 * in cannot lead the daemon out of the tree, and a descriptor keeps naming the file it was opened
 * on whatever is renamed or replaced after.
 *
 * Usage: pushgate-denyfs --source DIR --mountpoint DIR [--deny GLOB]... [--deny-path PATTERN]...
 *            [--host-path SPELLING]... [--dependency-dir NAME]... [--judged-config /REL/PATH]...
 *            [--passthrough auto|off] [--uring auto|off]
 * It prints "ready" once mounted ("transport io_uring" when the first request comes that way), and
 * unmounts and exits when its standard input ends (the launcher closed it, or died). Until then,
 * a --judged-config (a repository's .git/config) is written only as the launcher answers on
 * standard input ("judge-config" on standard output; see "repository configs" below). The mount
 * uses auto_unmount: fusermount3 unmounts it when this process dies, even by SIGKILL.
 */
#define FUSE_USE_VERSION 312
#define _GNU_SOURCE
#include <fuse_lowlevel.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_PATTERNS 256
/* How long the kernel may keep a name's lookup (found or not found) and a file's attributes
 * without asking again. Every write of a name is an operation (create, mknod, mkdir, rename,
 * link, symlink, unlink, open for write, setattr) that reaches the daemon whatever is cached, so a
 * cache cannot let a write bypass a deny; what it delays is seeing a change made to the source
 * directory from outside the layer (the host, not the sandbox), by at most this long. */
#define CACHE_SECONDS 60.0

static const char *deny_globs[MAX_PATTERNS];
static int n_deny_globs;
static const char *deny_paths[MAX_PATTERNS];
static int n_deny_paths;
static const char *host_paths[MAX_PATTERNS];
static int n_host_paths;
static const char *dependency_dirs[MAX_PATTERNS];
static int n_dependency_dirs;
/* Repository configs (paths relative to the mount, "/.git/config") no write may reach but the one
 * the launcher approves: git's rename of config.lock onto them ("Repository configs" below). */
static const char *judged_configs[MAX_PATTERNS];
static int n_judged_configs;
static int running_as_root;
static int writeback; /* the kernel caches writes (FUSE_CAP_WRITEBACK_CACHE) */
static int passthrough_allowed = 1; /* --passthrough off clears it (for measuring) */
static int kernel_offers_passthrough; /* read from the kernel's INIT request */
static int passthrough; /* asked for in the INIT reply: opens hand the kernel the file underneath */
static int backing_registered; /* a backing file was ever registered (under table_lock) */
static char root_path[PATH_MAX]; /* the source as the kernel spells it (/proc/self/fd) */
static size_t root_path_len;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- deny decisions (on paths relative to the mount, starting with /) ---- */

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
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
  while (*pattern == '/') {
    pattern++;
  }
  while (*path == '/') {
    path++;
  }
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
      p = strchrnul(p, '/');
      while (*p == '/') {
        p++;
      }
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
static int name_matches_glob(const char *name) {
  char seen[NAME_MAX * 2 + 1];
  if (n_deny_globs == 0) {
    return 0;
  }
  return spelling_matches_globs(name)
      || !checked_out(name, seen, sizeof seen) || spelling_matches_globs(seen);
}

/* Whether a protected-path pattern could match a path strictly below PATH. */
static int pattern_reaches_below(const char *pattern, const char *path) {
  while (*pattern == '/') {
    pattern++;
  }
  while (*path == '/') {
    path++;
  }
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
    while (*p == '/') {
      p++;
    }
    while (*q == '/') {
      q++;
    }
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

static void prepare_patterns(void) {
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

/* Whether PATH or a directory above it matches a protected-path pattern: a pattern protects what
 * it names and everything below, as a protected path given literally does (bubblewrap binds it
 * read-only whole). A path too long to judge is protected. */
static int path_matches_pattern(const char *path) {
  char full[PATH_MAX * 2];
  for (int h = 0; h < n_host_paths; h++) {
    if (!host_spelling(h, path, full, sizeof full)) {
      return 1;
    }
    for (int i = 0; i < n_deny_paths; i++) {
      if (matches_seen(h, i, path)) {
        return 1;
      }
    }
  }
  return 0;
}

/* Whether a protected-path pattern could match something below PATH (relative to the mount): a
 * directory or symlink put there, or taken away from there, would carry files into or out of the
 * pattern's reach. */
static int protected_below(const char *path) {
  char full[PATH_MAX * 2];
  for (int h = 0; h < n_host_paths; h++) {
    if (!host_spelling(h, path, full, sizeof full)) {
      return 1;
    }
    for (int i = 0; i < n_deny_paths; i++) {
      if (pattern_reaches_below(deny_paths[i], full)) {
        return 1;
      }
    }
  }
  return 0;
}

/* Whether a component of PATH (relative to the mount) is a dependency tree's directory, the last
 * one counted only when WITH_LAST: a file below one was put there by a package manager, and its
 * name is not judged by the globs. Matched exactly: a name that only looks like one is no tree. */
static int in_dependency_tree(const char *path, int with_last) {
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
static int denied(const char *path) {
  return name_matches_glob(base_name(path)) || path_matches_pattern(path);
}

/* Whether PATH (relative to the mount) is a repository config only the launcher's judgement
 * writes. */
static int is_judged_config(const char *path) {
  for (int i = 0; i < n_judged_configs; i++) {
    if (strcmp(judged_configs[i], path) == 0) {
      return 1;
    }
  }
  return 0;
}

/* PATH into LINE from N on, every byte that is not printable ASCII as \xNN, so that a line of ours
 * ends where it says. Returns the new length. */
static size_t put_escaped(char *line, size_t n, size_t size, const char *path) {
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
static int report(const char *path) {
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

/* ---- the inode table ---- */

struct inode {
  int fd;               /* O_PATH | O_NOFOLLOW, opened by one name beneath the source */
  mode_t type;          /* S_IFMT bits: a file's type never changes */
  dev_t dev;
  ino_t ino;
  uint64_t nlookup;     /* the kernel's references: freed when they are all forgotten */
  char *denied_as;      /* when looked up by a denied name: that path (for the report), else NULL */
  int backing_id;       /* passthrough: the kernel's id of the file underneath, else 0 */
  struct inode *next;   /* hash chain */
};

/* fi->fh: the open file's descriptor underneath. */
static int fh_fd(const struct fuse_file_info *fi) {
  return (int) fi->fh;
}

static struct inode root;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct inode **buckets;
static size_t n_buckets = 1 << 12;
static size_t n_inodes;

static size_t bucket_of(dev_t dev, ino_t ino) {
  uint64_t h = (uint64_t) ino * 0x9e3779b97f4a7c15ULL ^ (uint64_t) dev;
  return (size_t) (h >> 20) & (n_buckets - 1);
}

/* Called with table_lock held. */
static void grow_table(void) {
  size_t old_n = n_buckets;
  struct inode **old = buckets;
  struct inode **fresh = calloc(old_n * 2, sizeof *fresh);
  if (fresh == NULL) {
    return; /* longer chains, still correct */
  }
  buckets = fresh;
  n_buckets = old_n * 2;
  for (size_t b = 0; b < old_n; b++) {
    for (struct inode *i = old[b], *next; i != NULL; i = next) {
      next = i->next;
      size_t nb = bucket_of(i->dev, i->ino);
      i->next = buckets[nb];
      buckets[nb] = i;
    }
  }
  free(old);
}

static struct inode *inode_of(fuse_ino_t ino) {
  return ino == FUSE_ROOT_ID ? &root : (struct inode *) (uintptr_t) ino;
}

static fuse_ino_t ino_of(struct inode *i) {
  return i == &root ? FUSE_ROOT_ID : (fuse_ino_t) (uintptr_t) i;
}

static void drop_backing(struct inode *i);

static void forget_one(struct inode *i, uint64_t n) {
  if (i == &root) {
    return;
  }
  pthread_mutex_lock(&table_lock);
  if (i->nlookup <= n) {
    struct inode **p = &buckets[bucket_of(i->dev, i->ino)];
    while (*p != NULL && *p != i) {
      p = &(*p)->next;
    }
    if (*p == i) {
      *p = i->next;
    }
    n_inodes--;
    pthread_mutex_unlock(&table_lock);
    drop_backing(i);
    close(i->fd);
    free(i->denied_as);
    free(i);
    return;
  }
  i->nlookup -= n;
  pthread_mutex_unlock(&table_lock);
}

/* ---- paths, only for the refusal lines and protected-path patterns ---- */

/* The path of a descriptor relative to the source ("/" for the source itself), as the kernel
 * knows it now (it follows renames). -1 when it has none (deleted, or moved out of the tree from
 * outside the layer). */
static int rel_path_of_fd(int fd, char *out, size_t size) {
  char proc[64], full[PATH_MAX];
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(proc, full, sizeof full - 1);
  if (n < 0) {
    return -1;
  }
  full[n] = 0;
  if (n >= 10 && strcmp(full + n - 10, " (deleted)") == 0) {
    return -1;
  }
  const char *rest;
  if (root_path_len == 1) { /* the source is / */
    rest = full;
  } else if (strncmp(full, root_path, root_path_len) == 0
      && (full[root_path_len] == '/' || full[root_path_len] == 0)) {
    rest = full + root_path_len;
  } else {
    return -1;
  }
  snprintf(out, size, "%s", *rest ? rest : "/");
  return 0;
}

/* PARENT/NAME relative to the source; -1 when the parent has no path. */
static int rel_path_of_name(struct inode *parent, const char *name, char *out, size_t size) {
  char dir[PATH_MAX];
  if (rel_path_of_fd(parent->fd, dir, sizeof dir) != 0) {
    return -1;
  }
  snprintf(out, size, "%s/%s", strcmp(dir, "/") == 0 ? "" : dir, name);
  return 0;
}

/* Whether NAME in PARENT may not be written; *PATH_OUT then holds the path to report. Without
 * protected-path patterns only the name counts, and no path is computed unless it is refused. A
 * parent whose path cannot be told (moved out of the tree from outside) fails closed when
 * patterns apply. */
static int name_denied(struct inode *parent, const char *name, char *path_out, size_t size) {
  int glob = name_matches_glob(name);
  int config = n_judged_configs > 0 && strcmp(name, "config") == 0;
  if (!glob && !config && n_deny_paths == 0) {
    return 0;
  }
  if (rel_path_of_name(parent, name, path_out, size) != 0) {
    snprintf(path_out, size, "/%s", name);
    return glob || config || n_deny_paths > 0;
  }
  if (glob && in_dependency_tree(path_out, 0)) {
    glob = 0;
  }
  return glob || (config && is_judged_config(path_out)) || path_matches_pattern(path_out);
}

#define REFUSE_NAME(req, parent, name)                                  \
  do {                                                                  \
    char denied_path_[PATH_MAX + NAME_MAX + 2];                          \
    if (name_denied((parent), (name), denied_path_, sizeof denied_path_)) { \
      fuse_reply_err((req), report(denied_path_));                      \
      return;                                                           \
    }                                                                   \
  } while (0)

/* Whether the file of inode I may not be written: it was ever looked up by a denied name (so a
 * second, harmless-looking hard link to it is no way around), or its present path matches a
 * protected-path pattern (a directory above it may have been renamed since). A file with no path
 * (deleted while open) has no name to deny. */
static int inode_denied(struct inode *i, char *path_out, size_t size) {
  if (i->denied_as != NULL) {
    snprintf(path_out, size, "%s", i->denied_as);
    return 1;
  }
  if (n_deny_paths == 0 || rel_path_of_fd(i->fd, path_out, size) != 0) {
    return 0;
  }
  return path_matches_pattern(path_out);
}

#define REFUSE_INODE(req, i)                                            \
  do {                                                                  \
    char denied_path_[PATH_MAX + NAME_MAX + 2];                          \
    if (inode_denied((i), denied_path_, sizeof denied_path_)) {         \
      fuse_reply_err((req), report(denied_path_));                      \
      return;                                                           \
    }                                                                   \
  } while (0)

/* ---- whose operation ---- */

/* The kernel checks no permissions (no default_permissions: with it, every create or unlink in a
 * directory would cost a GETATTR of the directory before the next name in it could be looked up).
 * The file system underneath checks them instead: as root, each request is performed with the
 * caller's file-system ids (setfsuid/setfsgid, per thread, which also drops root's file
 * capabilities while they are not 0) and no supplementary groups (pushgate's sandbox users have
 * none: setpriv clears them); as another user, the kernel lets only that same user in (no
 * allow_other), so the daemon's own ids are the caller's. Files the caller makes are its own. */
static __thread uid_t thread_fsuid;
static __thread gid_t thread_fsgid;
/* Set once a thread has set all three: libfuse starts a new worker from a worker, and the new
 * thread inherits that worker's ids, not root's. */
static __thread int thread_ids_set;

static int become_caller(fuse_req_t req) {
  if (!running_as_root) {
    return 0;
  }
  const struct fuse_ctx *c = fuse_req_ctx(req);
  if (!thread_ids_set) {
    /* the raw call: glibc's setgroups would change every thread */
    if (syscall(SYS_setgroups, 0, NULL) != 0) {
      return EPERM;
    }
  }
  if (!thread_ids_set || c->gid != thread_fsgid) {
    syscall(SYS_setfsgid, c->gid);
    if ((gid_t) syscall(SYS_setfsgid, -1) != c->gid) {
      return EPERM;
    }
    thread_fsgid = c->gid;
  }
  if (!thread_ids_set || c->uid != thread_fsuid) {
    syscall(SYS_setfsuid, c->uid);
    if ((uid_t) syscall(SYS_setfsuid, -1) != c->uid) {
      return EPERM;
    }
    thread_fsuid = c->uid;
  }
  thread_ids_set = 1;
  return 0;
}

#define AS_CALLER(req)                \
  do {                                \
    int as_caller_err_ = become_caller(req); \
    if (as_caller_err_ != 0) {        \
      fuse_reply_err((req), as_caller_err_); \
      return;                         \
    }                                 \
  } while (0)

/* ---- lookups ---- */

/* Registers FD (O_PATH, owned by the table from here on) as NAME in PARENT and fills E. */
static int remember(struct inode *parent, const char *name, int fd, struct fuse_entry_param *e) {
  memset(e, 0, sizeof *e);
  if (fstatat(fd, "", &e->attr, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) != 0) {
    int err = errno;
    close(fd);
    return err;
  }
  char path[PATH_MAX + NAME_MAX + 2];
  int deny = name_denied(parent, name, path, sizeof path);
  pthread_mutex_lock(&table_lock);
  struct inode *i = buckets[bucket_of(e->attr.st_dev, e->attr.st_ino)];
  while (i != NULL && (i->ino != e->attr.st_ino || i->dev != e->attr.st_dev)) {
    i = i->next;
  }
  if (i != NULL) {
    i->nlookup++;
    close(fd);
  } else {
    i = calloc(1, sizeof *i);
    if (i == NULL) {
      pthread_mutex_unlock(&table_lock);
      close(fd);
      return ENOMEM;
    }
    i->fd = fd;
    i->type = e->attr.st_mode & S_IFMT;
    i->dev = e->attr.st_dev;
    i->ino = e->attr.st_ino;
    i->nlookup = 1;
    size_t b = bucket_of(i->dev, i->ino);
    i->next = buckets[b];
    buckets[b] = i;
    if (++n_inodes > n_buckets) {
      grow_table();
    }
  }
  if (deny && i->denied_as == NULL) {
    i->denied_as = strdup(path); /* NULL when out of memory: then the patterns still judge it */
  }
  pthread_mutex_unlock(&table_lock);
  e->ino = ino_of(i);
  e->attr_timeout = CACHE_SECONDS;
  e->entry_timeout = CACHE_SECONDS;
  return 0;
}

static int bad_name(const char *name) {
  return strchr(name, '/') != NULL || strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
}

static int do_lookup(struct inode *parent, const char *name, struct fuse_entry_param *e) {
  if (bad_name(name)) {
    return EINVAL; /* the kernel sends one component, never . or .. (no export support) */
  }
  int fd = openat(parent->fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    return errno;
  }
  return remember(parent, name, fd, e);
}

static void dfs_lookup(fuse_req_t req, fuse_ino_t parent, const char *name) {
  AS_CALLER(req);
  struct fuse_entry_param e;
  int err = do_lookup(inode_of(parent), name, &e);
  if (err == ENOENT) {
    /* A cached "not found": creating the name is still a CREATE/MKNOD/MKDIR that comes here. */
    memset(&e, 0, sizeof e);
    e.entry_timeout = CACHE_SECONDS;
    fuse_reply_entry(req, &e);
  } else if (err != 0) {
    fuse_reply_err(req, err);
  } else {
    fuse_reply_entry(req, &e);
  }
}

static void dfs_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup) {
  forget_one(inode_of(ino), nlookup);
  fuse_reply_none(req);
}

static void dfs_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *forgets) {
  for (size_t k = 0; k < count; k++) {
    forget_one(inode_of(forgets[k].ino), forgets[k].nlookup);
  }
  fuse_reply_none(req);
}

/* A name just made in PARENT by the daemon (as the caller: the file is the caller's): its
 * descriptor, registered. OPEN_FD is the new file's descriptor when one is open (create), else
 * -1. */
static void reply_opened(fuse_req_t req, struct inode *i, int fd, struct fuse_file_info *fi,
    const struct fuse_entry_param *entry);

static void reply_made(fuse_req_t req, struct inode *parent, const char *name, int open_fd,
    struct fuse_file_info *fi) {
  int fd;
  if (open_fd >= 0) {
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", open_fd);
    fd = open(proc, O_PATH | O_CLOEXEC); /* the very file created, however the name moves */
  } else {
    fd = openat(parent->fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  }
  if (fd < 0) {
    int err = errno;
    if (open_fd >= 0) {
      close(open_fd);
    }
    fuse_reply_err(req, err);
    return;
  }
  struct fuse_entry_param e;
  int err = remember(parent, name, fd, &e);
  if (err != 0) {
    if (open_fd >= 0) {
      close(open_fd);
    }
    fuse_reply_err(req, err);
    return;
  }
  if (fi != NULL) {
    reply_opened(req, inode_of(e.ino), open_fd, fi, &e);
  } else if (fuse_reply_entry(req, &e) == -ENOENT) {
    forget_one(inode_of(e.ino), 1);
  }
}

/* ---- attributes ---- */

static void dfs_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi) {
  (void) fi;
  struct stat st;
  if (fstatat(inode_of(ino)->fd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) != 0) {
    fuse_reply_err(req, errno);
    return;
  }
  fuse_reply_attr(req, &st, CACHE_SECONDS);
}

/* /proc/self/fd/N of an O_PATH descriptor: opening or changing it reaches that very file (the
 * magic link is not a path walked by name; no symlink is followed from it). */
static void proc_path(int fd, char *buf, size_t size) {
  snprintf(buf, size, "/proc/self/fd/%d", fd);
}

#define CHANGES (FUSE_SET_ATTR_MODE | FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID | FUSE_SET_ATTR_SIZE \
    | FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_MTIME | FUSE_SET_ATTR_ATIME_NOW \
    | FUSE_SET_ATTR_MTIME_NOW | FUSE_SET_ATTR_CTIME)

static void dfs_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int valid,
    struct fuse_file_info *fi) {
  AS_CALLER(req);
  struct inode *i = inode_of(ino);
  if (valid & CHANGES) {
    /* chmod, chown, truncate and utimens of a denied name, through a descriptor too (a file
     * opened for reading is not thereby opened for fchmod, fchown or futimens). */
    REFUSE_INODE(req, i);
  }
  int ofd = fi != NULL ? fh_fd(fi) : -1;
  char proc[64];
  proc_path(i->fd, proc, sizeof proc);
  int res = 0;
  if (valid & FUSE_SET_ATTR_MODE) {
    /* A symlink has no mode of its own (and chmod on the magic link would reach its inode). */
    res = S_ISLNK(i->type) ? (errno = EOPNOTSUPP, -1)
        : ofd >= 0 ? fchmod(ofd, attr->st_mode) : chmod(proc, attr->st_mode);
  }
  if (res == 0 && (valid & (FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID))) {
    uid_t uid = (valid & FUSE_SET_ATTR_UID) ? attr->st_uid : (uid_t) -1;
    gid_t gid = (valid & FUSE_SET_ATTR_GID) ? attr->st_gid : (gid_t) -1;
    res = fchownat(i->fd, "", uid, gid, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW);
  }
  if (res == 0 && (valid & FUSE_SET_ATTR_SIZE)) {
    /* Only a descriptor opened for write can truncate, and open refused those on denied names. */
    res = ofd >= 0 ? ftruncate(ofd, attr->st_size)
        : S_ISREG(i->type) ? truncate(proc, attr->st_size) : (errno = EINVAL, -1);
  }
  if (res == 0 && (valid & (FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_MTIME))) {
    struct timespec tv[2] = {{0, UTIME_OMIT}, {0, UTIME_OMIT}};
    if (valid & FUSE_SET_ATTR_ATIME_NOW) {
      tv[0].tv_nsec = UTIME_NOW;
    } else if (valid & FUSE_SET_ATTR_ATIME) {
      tv[0] = attr->st_atim;
    }
    if (valid & FUSE_SET_ATTR_MTIME_NOW) {
      tv[1].tv_nsec = UTIME_NOW;
    } else if (valid & FUSE_SET_ATTR_MTIME) {
      tv[1] = attr->st_mtim;
    }
    res = ofd >= 0 ? futimens(ofd, tv) : utimensat(i->fd, "", tv, AT_EMPTY_PATH);
    if (res != 0 && errno == EPERM && writeback && (valid & FUSE_SET_ATTR_CTIME)) {
      /* The writeback cache's own times after writes, on a file the caller may write but does
       * not own: the writes set the times underneath already; "now" needs only write access. */
      tv[0].tv_nsec = UTIME_OMIT;
      tv[1].tv_nsec = UTIME_NOW;
      res = ofd >= 0 ? futimens(ofd, tv) : utimensat(i->fd, "", tv, AT_EMPTY_PATH);
    }
  }
  if (res != 0) {
    fuse_reply_err(req, errno);
    return;
  }
  dfs_getattr(req, ino, fi);
}

static void dfs_readlink(fuse_req_t req, fuse_ino_t ino) {
  char buf[PATH_MAX + 1];
  ssize_t n = readlinkat(inode_of(ino)->fd, "", buf, sizeof buf);
  if (n < 0) {
    fuse_reply_err(req, errno);
  } else if (n >= (ssize_t) sizeof buf) {
    fuse_reply_err(req, ENAMETOOLONG);
  } else {
    buf[n] = 0;
    fuse_reply_readlink(req, buf);
  }
}

static void dfs_statfs(fuse_req_t req, fuse_ino_t ino) {
  struct statvfs st;
  if (fstatvfs(inode_of(ino)->fd, &st) != 0) {
    fuse_reply_err(req, errno);
  } else {
    fuse_reply_statfs(req, &st);
  }
}

/* ---- names ---- */

static void dfs_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
    dev_t rdev) {
  AS_CALLER(req);
  struct inode *p = inode_of(parent);
  REFUSE_NAME(req, p, name);
  if (bad_name(name) || mknodat(p->fd, name, mode, rdev) != 0) {
    fuse_reply_err(req, bad_name(name) ? EINVAL : errno);
    return;
  }
  reply_made(req, p, name, -1, NULL);
}

static void dfs_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode) {
  AS_CALLER(req);
  struct inode *p = inode_of(parent);
  REFUSE_NAME(req, p, name);
  if (bad_name(name) || mkdirat(p->fd, name, mode) != 0) {
    fuse_reply_err(req, bad_name(name) ? EINVAL : errno);
    return;
  }
  reply_made(req, p, name, -1, NULL);
}

/* Whether a directory or symlink put at NAME in P (made, linked or renamed there) could carry
 * files written unprotected into a protected-path pattern's reach: a pattern could match below
 * the name. PATH_OUT gets the name's path; one that cannot be told is refused. */
static int placing_tree_denied(struct inode *p, const char *name, char *path_out, size_t size) {
  if (rel_path_of_name(p, name, path_out, size) != 0) {
    snprintf(path_out, size, "/%s", name);
    return n_deny_paths > 0;
  }
  return n_deny_paths > 0 && protected_below(path_out);
}

/* Whether a symlink at PATH (relative to the mount) with TARGET leads from outside a dependency
 * tree into one: what a package manager wrote there under a denied name would then be reached by
 * a name where the globs apply (a home's missing ~/.ssh made a link to node_modules/k/). Links
 * within a tree (npm's node_modules/.bin) are the package manager's own. */
static int leads_into_dependency_tree(const char *path, const char *target) {
  return n_dependency_dirs > 0 && n_deny_globs > 0 && !in_dependency_tree(path, 0)
      && in_dependency_tree(target, 1);
}

static void dfs_symlink(fuse_req_t req, const char *target, fuse_ino_t parent, const char *name) {
  AS_CALLER(req);
  struct inode *p = inode_of(parent);
  REFUSE_NAME(req, p, name);
  /* A link whose target is a denied name adds no way to write it (the kernel resolves the link
   * and the write is judged on the target), but it is refused all the same: it has no use other
   * than to reach the denied name. */
  char path[PATH_MAX + NAME_MAX + 2];
  if (placing_tree_denied(p, name, path, sizeof path) || denied(target)
      || leads_into_dependency_tree(path, target)) {
    fuse_reply_err(req, report(path));
    return;
  }
  if (bad_name(name) || symlinkat(target, p->fd, name) != 0) {
    fuse_reply_err(req, bad_name(name) ? EINVAL : errno);
    return;
  }
  reply_made(req, p, name, -1, NULL);
}

static void dfs_unlink(fuse_req_t req, fuse_ino_t parent, const char *name) {
  AS_CALLER(req);
  struct inode *p = inode_of(parent);
  REFUSE_NAME(req, p, name);
  fuse_reply_err(req, unlinkat(p->fd, name, 0) == 0 ? 0 : errno);
}

static void dfs_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name) {
  AS_CALLER(req);
  struct inode *p = inode_of(parent);
  REFUSE_NAME(req, p, name);
  fuse_reply_err(req, unlinkat(p->fd, name, AT_REMOVEDIR) == 0 ? 0 : errno);
}

/* Whether NAME in P is a directory or a symlink: what carries a tree under its name. */
static int names_tree(struct inode *p, const char *name) {
  struct stat st;
  return fstatat(p->fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0
      && (S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode));
}

/* Whether a directory or symlink moved between NAME in P and NEWNAME in NP would carry files out
 * of a dependency tree (or, exchanged, into where the other one was): what a package manager wrote
 * there under a denied name would then lie outside one. Moves within a tree, or into one, are
 * what package managers do. PATH_OUT gets the source's path; one that cannot be told is refused. */
static int dependency_move_denied(struct inode *p, const char *name, struct inode *np,
    const char *newname, unsigned int flags, char *path_out, size_t size) {
  char to[PATH_MAX + NAME_MAX + 2];
  int moved = names_tree(p, name), exchanged = (flags & RENAME_EXCHANGE) && names_tree(np, newname);
  if (n_dependency_dirs == 0 || n_deny_globs == 0 || !(moved || exchanged)) {
    return 0;
  }
  if (rel_path_of_name(p, name, path_out, size) != 0
      || rel_path_of_name(np, newname, to, sizeof to) != 0) {
    snprintf(path_out, size, "/%s", name);
    return 1;
  }
  int from_tree = in_dependency_tree(path_out, 1), to_tree = in_dependency_tree(to, 1);
  return (moved && from_tree && !to_tree) || (exchanged && to_tree && !from_tree);
}

/* A directory or symlink renamed from or to a name below which a protected-path pattern could
 * match would carry protected files out of the pattern's reach, or files written unprotected
 * (or a link to them) into it: refused, with the name in PATH_OUT. So would one carried out of a
 * dependency tree. The kernel holds both directories locked for the rename, so the sandbox
 * cannot swap what the names are meanwhile. */
static int tree_move_denied(struct inode *p, const char *name, struct inode *np,
    const char *newname, unsigned int flags, char *path_out, size_t size) {
  if (dependency_move_denied(p, name, np, newname, flags, path_out, size)) {
    return 1;
  }
  if (n_deny_paths == 0
      || !(names_tree(p, name) || ((flags & RENAME_EXCHANGE) && names_tree(np, newname)))) {
    return 0;
  }
  if (placing_tree_denied(p, name, path_out, size)) { /* taken away from there */
    return 1;
  }
  return placing_tree_denied(np, newname, path_out, size);
}

static void judged_config_rename(fuse_req_t req, struct inode *dir, const char *config_path);
static int is_config_commit(struct inode *p, const char *name, struct inode *np,
    const char *newname, unsigned int flags, char *path_out, size_t size);

static void dfs_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent,
    const char *newname, unsigned int flags) {
  AS_CALLER(req);
  struct inode *p = inode_of(parent), *np = inode_of(newparent);
  REFUSE_NAME(req, p, name);
  char config_path[PATH_MAX + NAME_MAX + 2];
  if (is_config_commit(p, name, np, newname, flags, config_path, sizeof config_path)) {
    judged_config_rename(req, np, config_path);
    return;
  }
  REFUSE_NAME(req, np, newname);
  if (bad_name(name) || bad_name(newname)) {
    fuse_reply_err(req, EINVAL);
    return;
  }
  char path[PATH_MAX + NAME_MAX + 2];
  if (tree_move_denied(p, name, np, newname, flags, path, sizeof path)) {
    fuse_reply_err(req, report(path));
    return;
  }
  fuse_reply_err(req, renameat2(p->fd, name, np->fd, newname, flags) == 0 ? 0 : errno);
}

/* ---- repository configs: an upstream stored on the launcher's judgement ----
 *
 * A repository's .git/config is never written by the sandbox (a git on the host may read it while
 * the run lives), with one exception: git commits a config change by renaming config.lock onto
 * config, and that rename is taken over here. The daemon copies the lock's bytes (whatever is
 * written to the lock afterwards changes nothing), reads the current config, and asks the
 * launcher over its standard output; the launcher judges the edit (UpstreamConfigEdit: only a
 * branch's upstream may differ) and answers on standard input, one question at a time, within
 * JUDGE_SECONDS. No answer is a refusal. On approval the copy is written to a file of the
 * daemon's own (O_TMPFILE: no name until it is complete), linked under a name of its own and
 * renamed onto config, and config.lock is removed, as git's rename would have. The kernel holds
 * the .git directory locked for the whole request, so no other name in it changes meanwhile.
 * Every other write to config (opened for write, truncated, removed, renamed away, another file
 * renamed onto it, a link of it) is refused by its name (name_denied). See docs/sandbox.md, "The
 * repository's .git/config: only an upstream". */

#define JUDGED_MAX_BYTES (256 * 1024) /* UpstreamConfigEdit.MAX_BYTES: larger is refused */
#define JUDGE_SECONDS 10

static struct fuse_session *the_session; /* defined with the transport, below */
static pthread_mutex_t judge_lock = PTHREAD_MUTEX_INITIALIZER; /* one question at a time */
static pthread_mutex_t answer_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t answer_came = PTHREAD_COND_INITIALIZER;
static unsigned long asked;    /* the number of the question asked last */
static unsigned long answered; /* the number of the last answer to it */
static int answer_yes;

/* Whether renaming NAME in P onto NEWNAME in NP is git committing a judged config: config.lock
 * onto config in the same directory, a plain rename. PATH_OUT gets the config's path. */
static int is_config_commit(struct inode *p, const char *name, struct inode *np,
    const char *newname, unsigned int flags, char *path_out, size_t size) {
  return n_judged_configs > 0 && p == np && flags == 0 && strcmp(name, "config.lock") == 0
      && strcmp(newname, "config") == 0 && rel_path_of_name(np, newname, path_out, size) == 0
      && is_judged_config(path_out);
}

/* The bytes of NAME in DIR when it is a regular file of at most JUDGED_MAX_BYTES (never through a
 * symlink, never blocking on a FIFO): *OUT, malloc'd, and its length; else an errno. ST gets its
 * attributes. */
static int read_regular(struct inode *dir, const char *name, char **out, size_t *len,
    struct stat *st) {
  int fd = openat(dir->fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    return errno;
  }
  if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode) || st->st_size > JUDGED_MAX_BYTES) {
    close(fd);
    return EACCES;
  }
  char *buf = malloc(JUDGED_MAX_BYTES + 1);
  size_t n = 0;
  ssize_t r = 0;
  while (buf != NULL && n <= JUDGED_MAX_BYTES
      && ((r = read(fd, buf + n, JUDGED_MAX_BYTES + 1 - n)) > 0 || (r < 0 && errno == EINTR))) {
    n += r > 0 ? (size_t) r : 0;
  }
  close(fd);
  if (buf == NULL || r < 0 || n > JUDGED_MAX_BYTES) {
    free(buf);
    return buf == NULL ? ENOMEM : EACCES;
  }
  *out = buf;
  *len = n;
  return 0;
}

static void put_hex(const char *bytes, size_t n) {
  static const char digits[] = "0123456789abcdef";
  char chunk[4096];
  size_t c = 0;
  for (size_t k = 0; k < n; k++) {
    chunk[c++] = digits[(unsigned char) bytes[k] >> 4];
    chunk[c++] = digits[(unsigned char) bytes[k] & 15];
    if (c == sizeof chunk) {
      fwrite(chunk, 1, c, stdout);
      c = 0;
    }
  }
  fwrite(chunk, 1, c, stdout);
}

/* Asks the launcher whether config at PATH may become NOW (it is WAS): one line on standard output,
 * "judge-config ID WAS NOW PATH", the texts in hex (an empty text is "-"), the path last and
 * escaped as in a refusal line.
 * 1: yes; 0: no (the launcher reports it, with its reason); -1: no answer in time. */
static int ask_launcher(const char *path, const char *was, size_t nwas, const char *now,
    size_t nnow) {
  pthread_mutex_lock(&judge_lock);
  pthread_mutex_lock(&answer_lock);
  unsigned long id = ++asked;
  pthread_mutex_unlock(&answer_lock);
  char tail[PATH_MAX * 4 + 8];
  size_t n = put_escaped(tail, 1, sizeof tail, path);
  tail[0] = ' ';
  tail[n++] = '\n';
  pthread_mutex_lock(&out_lock);
  fprintf(stdout, "judge-config %lu ", id);
  nwas == 0 ? (void) fputs("-", stdout) : put_hex(was, nwas);
  fputc(' ', stdout);
  nnow == 0 ? (void) fputs("-", stdout) : put_hex(now, nnow);
  fwrite(tail, 1, n, stdout);
  int sent = fflush(stdout) == 0;
  pthread_mutex_unlock(&out_lock);
  int verdict = -1;
  struct timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += JUDGE_SECONDS;
  pthread_mutex_lock(&answer_lock);
  while (sent && answered != id
      && pthread_cond_timedwait(&answer_came, &answer_lock, &deadline) != ETIMEDOUT) {
  }
  if (answered == id) {
    verdict = answer_yes;
  }
  pthread_mutex_unlock(&answer_lock);
  pthread_mutex_unlock(&judge_lock);
  return verdict;
}

/* One line of the launcher's, "ID yes" or "ID no": the answer to question ID, taken only when it
 * is the question waiting. */
static void take_answer(const char *line) {
  char *end;
  unsigned long id = strtoul(line, &end, 10);
  int yes = strcmp(end, " yes") == 0;
  if (end == line || (!yes && strcmp(end, " no") != 0)) {
    return;
  }
  pthread_mutex_lock(&answer_lock);
  if (id == asked && answered != id) {
    answered = id;
    answer_yes = yes;
    pthread_cond_broadcast(&answer_came);
  }
  pthread_mutex_unlock(&answer_lock);
}

/* Writes BYTES as DIR's config with MODE: complete and on disk before it has a name, then renamed
 * into place in one step. 0 or an errno. */
static int put_config(struct inode *dir, const char *bytes, size_t n, mode_t mode) {
  static unsigned long made;
  char tmp[64], proc[64];
  snprintf(tmp, sizeof tmp, "config.pushgate-%ld-%lu", (long) getpid(),
      __atomic_add_fetch(&made, 1, __ATOMIC_RELAXED));
  int fd = openat(dir->fd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
  int named = 0;
  if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR)) {
    fd = openat(dir->fd, tmp, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, mode);
    named = 1;
  }
  if (fd < 0) {
    return errno;
  }
  int err = 0;
  for (size_t done = 0; done < n && err == 0;) {
    ssize_t w = write(fd, bytes + done, n - done);
    if (w > 0) {
      done += (size_t) w;
    } else if (w < 0 && errno != EINTR) {
      err = errno;
    }
  }
  if (err == 0 && (fchmod(fd, mode) != 0 || fsync(fd) != 0)) {
    err = errno;
  }
  if (err == 0 && !named) {
    proc_path(fd, proc, sizeof proc);
    if (linkat(AT_FDCWD, proc, dir->fd, tmp, AT_SYMLINK_FOLLOW) != 0) {
      err = errno;
    } else {
      named = 1;
    }
  }
  if (err == 0 && renameat(dir->fd, tmp, dir->fd, "config") != 0) {
    err = errno;
  }
  if (err != 0 && named) {
    unlinkat(dir->fd, tmp, 0);
  }
  close(fd);
  return err;
}

/* After a config is put in place, the kernel takes the lock's inode for config (a rename moves
 * the inode it knows): it is marked denied, as config itself, and the kernel is told to look the
 * name up again (from a thread of its own: the kernel answers that once the rename has ended). */
static void *forget_config_entry(void *arg) {
  fuse_lowlevel_notify_inval_entry(the_session, (fuse_ino_t) (uintptr_t) arg, "config", 6);
  return NULL;
}

static void deny_moved_lock(struct inode *dir, const struct stat *lock, const char *config_path) {
  pthread_mutex_lock(&table_lock);
  for (struct inode *i = buckets[bucket_of(lock->st_dev, lock->st_ino)]; i != NULL; i = i->next) {
    if (i->dev == lock->st_dev && i->ino == lock->st_ino && i->denied_as == NULL) {
      i->denied_as = strdup(config_path);
    }
  }
  pthread_mutex_unlock(&table_lock);
  pthread_t t;
  pthread_attr_t detached;
  if (pthread_attr_init(&detached) == 0) {
    pthread_attr_setdetachstate(&detached, PTHREAD_CREATE_DETACHED);
    pthread_create(&t, &detached, forget_config_entry, (void *) (uintptr_t) ino_of(dir));
    pthread_attr_destroy(&detached);
  }
}

static void judged_config_rename(fuse_req_t req, struct inode *dir, const char *config_path) {
  char *was = NULL, *now = NULL;
  size_t nwas = 0, nnow = 0;
  struct stat was_st, lock_st;
  int err = read_regular(dir, "config", &was, &nwas, &was_st);
  if (err == 0) {
    err = read_regular(dir, "config.lock", &now, &nnow, &lock_st);
  }
  int verdict = err == 0 ? ask_launcher(config_path, was, nwas, now, nnow) : -1;
  if (verdict == 1) {
    err = put_config(dir, now, nnow, was_st.st_mode & 07777);
    if (err == 0) {
      unlinkat(dir->fd, "config.lock", 0);
      deny_moved_lock(dir, &lock_st, config_path);
    }
  }
  free(was);
  free(now);
  if (verdict == 1) {
    fuse_reply_err(req, err);
  } else if (verdict == 0) {
    fuse_reply_err(req, EACCES); /* reported by the launcher, with its reason */
  } else {
    fuse_reply_err(req, report(config_path));
  }
}

static void dfs_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname) {
  AS_CALLER(req);
  struct inode *i = inode_of(ino), *np = inode_of(newparent);
  /* A second name for a denied file would be a name that is not denied. */
  REFUSE_INODE(req, i);
  REFUSE_NAME(req, np, newname);
  if (bad_name(newname)) {
    fuse_reply_err(req, EINVAL);
    return;
  }
  /* A second name of a symlink is a symlink put there (`ln -s t l; ln -P l secrets`, found by
   * attack): judged as dfs_symlink judges one. */
  char path[PATH_MAX + NAME_MAX + 2], target[PATH_MAX];
  if (i->type == S_IFLNK) {
    ssize_t n = readlinkat(i->fd, "", target, sizeof target - 1);
    target[n < 0 ? 0 : n] = 0;
    if (placing_tree_denied(np, newname, path, sizeof path) || n < 0
        || leads_into_dependency_tree(path, target)) {
      fuse_reply_err(req, report(path));
      return;
    }
  }
  char proc[64];
  proc_path(i->fd, proc, sizeof proc);
  /* AT_EMPTY_PATH would need CAP_DAC_READ_SEARCH; the magic link names the same file. */
  if (linkat(AT_FDCWD, proc, np->fd, newname, AT_SYMLINK_FOLLOW) != 0) {
    fuse_reply_err(req, errno);
    return;
  }
  struct fuse_entry_param e;
  int err = do_lookup(np, newname, &e);
  if (err != 0) {
    fuse_reply_err(req, err);
  } else if (fuse_reply_entry(req, &e) == -ENOENT) {
    forget_one(inode_of(e.ino), 1);
  }
}

/* ---- files ---- */

/* ---- passthrough: the kernel reads and writes the file underneath itself ----
 *
 * Linux 6.9 and later can hand a FUSE file's reads, writes and mmap straight to a file the daemon
 * opened (FUSE_PASSTHROUGH): no request per read or write. Nothing about a name changes: a
 * descriptor the sandbox holds was opened (or created) here, after the judgement, and the kernel
 * still checks it was opened for writing before any write. libfuse 3.14 (Debian 12) predates the
 * feature, so the daemon speaks that part of the protocol itself, through libfuse's custom I/O:
 * it reads the kernel's offer in the INIT request, adds its answer to the INIT reply, and adds the
 * backing file's id to the replies to OPEN and CREATE. Registering a backing file needs
 * CAP_SYS_ADMIN, so only a daemon running as root asks for it; others keep the writeback cache
 * (the kernel allows one or the other). */

#define PT_FUSE_FORGET 2
#define PT_FUSE_INIT 26
#define PT_FUSE_BATCH_FORGET 42
#define PT_FUSE_CREATE 35
#define PT_INIT_EXT (1u << 30)
#define PT_PASSTHROUGH_FLAGS2 (1u << 5)  /* FUSE_PASSTHROUGH: bit 37 of the INIT flags */
#define PT_FOPEN_PASSTHROUGH (1u << 7)
#define PT_IN_HEADER 40                  /* sizeof(struct fuse_in_header) */
#define PT_ENTRY_OUT 128                 /* sizeof(struct fuse_entry_out) */
/* The largest stack depth of the file system underneath plus one: overlayfs (1) beneath allowed. */
#define PT_MAX_STACK_DEPTH 2

struct pt_backing_map {
  int32_t fd;
  uint32_t flags;
  uint64_t padding;
};
#define PT_DEV_IOC_BACKING_OPEN _IOW(229, 1, struct pt_backing_map)
#define PT_DEV_IOC_BACKING_CLOSE _IOW(229, 2, uint32_t)

/* libfuse serves a request on the thread that read it: these describe that request. */
static __thread uint32_t thread_opcode;
static __thread uint64_t thread_unique;
/* Set while the thread replies to an OPEN or CREATE served by passthrough. */
static __thread int thread_backing_id;

static uint32_t u32_at(const void *p, size_t off) {
  uint32_t v;
  memcpy(&v, (const char *) p + off, sizeof v);
  return v;
}

static void put_u32(void *p, size_t off, uint32_t v) {
  memcpy((char *) p + off, &v, sizeof v);
}

static struct fuse_session *the_session;

/* ---- FUSE over io_uring ----
 *
 * Each request costs the process that made it a wake-up of a daemon thread and the daemon's
 * read and write of /dev/fuse; on a virtual machine the wake-up of a thread on another core is
 * most of the cost (docs/sandbox.md, "Cost"). Since Linux 6.14 the kernel can hand requests over
 * io_uring instead, when the host allows it (the fuse module's enable_uring parameter): one queue
 * per core, a request is queued on the core of the process that made it, and one daemon thread
 * pinned to that core serves it; the reply and the wait for the next request are one system call.
 * libfuse 3.14 predates it, so the daemon does this part itself: a queue's thread lays each
 * request out as /dev/fuse would have delivered it and hands it to libfuse, and the writev hook
 * puts libfuse's reply into the ring entry instead of writing it to /dev/fuse. Interrupts and
 * forgets still come through /dev/fuse, served by libfuse's own loop as before.
 *
 * The kernel blocks every request from the INIT reply that asks for io_uring until every queue
 * has an entry; so the rings, buffers and threads are all made before that reply (and it does not
 * ask if any cannot be), and the threads register their entries right after it. A registration
 * the kernel refuses turns io_uring off for the connection: requests go through /dev/fuse. */

#ifdef HAVE_LIBURING
#include <liburing.h>
#include <stddef.h>
#include <sched.h>

#define UR_OVER_IO_URING_FLAGS2 (1u << 9) /* FUSE_OVER_IO_URING: bit 41 of the INIT flags */
#define UR_CMD_REGISTER 1
#define UR_CMD_COMMIT_AND_FETCH 2
#define UR_DEPTH 4                        /* entries per queue */
#define UR_PAYLOAD (1u << 20)             /* the largest request or reply: max_write, 256 pages */
#define UR_PREFIX 256                     /* room for a fuse_in_header and the op's header */
#define UR_OUT_HEADER 16                  /* sizeof(struct fuse_out_header) */

struct ur_ent_in_out {
  uint64_t flags;
  uint64_t commit_id;
  uint32_t payload_sz;
  uint32_t padding;
  uint64_t reserved;
};

struct ur_req_header {
  char in_out[128];
  char op_in[128];
  struct ur_ent_in_out ent_in_out;
};

struct ur_cmd_req {
  uint64_t flags;
  uint64_t commit_id;
  uint16_t qid;
  uint8_t padding[6];
};

struct ur_queue;

struct ur_entry {
  struct ur_queue *queue;
  struct ur_req_header header;
  char *buffer;        /* UR_PREFIX bytes, then the payload the kernel reads and writes */
  struct iovec iov[2];
  uint64_t unique;     /* the request being served */
  int replied;
  uint32_t cmd;        /* the command last submitted for this entry, and its commit id */
  uint64_t commit_id;
};

struct ur_queue {
  int qid;
  struct io_uring ring;
  struct ur_entry entries[UR_DEPTH];
  pthread_t thread;
};

static int uring_allowed = 1;  /* --uring off clears it (for measuring) */
static int kernel_offers_uring;
static int uring;              /* asked for in the INIT reply */
static struct ur_queue *queues;
static int n_queues;
static int ur_fd;
static pthread_mutex_t ur_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ur_changed = PTHREAD_COND_INITIALIZER;
static int ur_ready_count, ur_failed, ur_go; /* ur_go: 1 register, -1 give up */
static int ur_said;
/* The ring entry whose request this thread serves, if it came by io_uring. */
static __thread struct ur_entry *thread_entry;

/* The kernel makes one queue per possible CPU (num_possible_cpus). */
static int possible_cpus(void) {
  FILE *f = fopen("/sys/devices/system/cpu/possible", "r");
  int n = 0, lo, hi;
  if (f == NULL) {
    return 0;
  }
  while (fscanf(f, "%d", &lo) == 1) {
    hi = lo;
    int c = fgetc(f);
    if (c == '-') {
      if (fscanf(f, "%d", &hi) != 1) {
        break;
      }
      c = fgetc(f);
    }
    n = hi + 1 > n ? hi + 1 : n;
    if (c != ',') {
      break;
    }
  }
  fclose(f);
  return n;
}

static void ur_prep(struct ur_entry *e, uint32_t cmd, uint64_t commit_id) {
  struct io_uring_sqe *sqe = io_uring_get_sqe(&e->queue->ring); /* never NULL: one per entry */
  e->cmd = cmd;
  e->commit_id = commit_id;
  /* Not a registered (fixed) file: the ring would then hold /dev/fuse open after this process
   * dies, until the kernel's asynchronous ring teardown, and fusermount3's auto_unmount, which
   * unmounts only a connection already ended, would find it alive and leave the mount. */
  io_uring_prep_rw(IORING_OP_URING_CMD, sqe, ur_fd, e->iov, 2, 0);
  sqe->cmd_op = cmd;
  /* The command is in the second half of the 128-byte entry (IORING_SETUP_SQE128). */
  struct ur_cmd_req req = {.commit_id = commit_id, .qid = (uint16_t) e->queue->qid};
  memcpy((char *) (uintptr_t) sqe + offsetof(struct io_uring_sqe, cmd), &req, sizeof req);
  io_uring_sqe_set_data(sqe, e);
}

/* Serves the request the kernel put in E, then hands the reply back with the next fetch. */
static void ur_serve(struct ur_entry *e) {
  struct ur_req_header *h = &e->header;
  uint32_t len = u32_at(h->in_out, 0);
  uint32_t payload = h->ent_in_out.payload_sz;
  char *at = e->buffer + UR_PREFIX;
  size_t op = len >= PT_IN_HEADER + (size_t) payload ? len - PT_IN_HEADER - payload : SIZE_MAX;
  memcpy(&e->unique, h->in_out + 8, sizeof e->unique);
  e->replied = 0;
  if (op <= sizeof h->op_in && payload <= UR_PAYLOAD) {
    /* As /dev/fuse delivers it: the in header, the op's header, the payload. */
    memcpy(at - op, h->op_in, op);
    memcpy(at - op - PT_IN_HEADER, h->in_out, PT_IN_HEADER);
    struct fuse_buf buf = {.size = len, .mem = at - op - PT_IN_HEADER};
    thread_entry = e;
    thread_opcode = u32_at(h->in_out, 4);
    thread_unique = e->unique;
    fuse_session_process_buf(the_session, &buf);
    thread_entry = NULL;
  }
  if (!e->replied) { /* a request laid out unlike any the kernel sends: refuse it */
    int32_t err = -EIO;
    memset(h->in_out, 0, UR_OUT_HEADER);
    put_u32(h->in_out, 0, UR_OUT_HEADER);
    memcpy(h->in_out + 4, &err, sizeof err);
    memcpy(h->in_out + 8, &e->unique, sizeof e->unique);
    h->ent_in_out.payload_sz = 0;
  }
  ur_prep(e, UR_CMD_COMMIT_AND_FETCH, h->ent_in_out.commit_id);
}

/* libfuse's reply to the request this thread serves from a ring entry, if IOV is one: put in the
 * entry (the out header, then the arguments as the payload). Returns the bytes taken, or -1. */
static ssize_t ur_reply(struct iovec *iov, int count) {
  struct ur_entry *e = thread_entry;
  uint64_t unique;
  if (e == NULL || count < 1 || iov[0].iov_len != UR_OUT_HEADER) {
    return -1;
  }
  memcpy(&unique, (char *) iov[0].iov_base + 8, sizeof unique);
  if (unique != e->unique) {
    return -1;
  }
  size_t payload = 0;
  for (int i = 1; i < count; i++) {
    payload += iov[i].iov_len;
  }
  if (payload > UR_PAYLOAD) {
    errno = EINVAL;
    return -2;
  }
  char *to = e->buffer + UR_PREFIX;
  for (int i = 1; i < count; i++) {
    memmove(to, iov[i].iov_base, iov[i].iov_len);
    to += iov[i].iov_len;
  }
  memcpy(e->header.in_out, iov[0].iov_base, UR_OUT_HEADER);
  e->header.ent_in_out.payload_sz = (uint32_t) payload;
  e->replied = 1;
  return (ssize_t) (UR_OUT_HEADER + payload);
}

/* Says whether this queue was made, then waits for the INIT reply: 1 to register, -1 not. */
static int ur_report(int ok) {
  pthread_mutex_lock(&ur_lock);
  ur_ready_count++;
  ur_failed |= !ok;
  pthread_cond_broadcast(&ur_changed);
  while (ur_go == 0) {
    pthread_cond_wait(&ur_changed, &ur_lock);
  }
  int go = ur_go;
  pthread_mutex_unlock(&ur_lock);
  return go;
}

static int ur_setup(struct ur_queue *q) {
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  CPU_SET(q->qid, &cpus);
  /* Served on the core whose processes made the requests; an offline core's queue stays idle. */
  sched_setaffinity(0, sizeof cpus, &cpus);
  struct io_uring_params p = {0};
  p.flags = IORING_SETUP_SQE128 | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
  if (io_uring_queue_init_params(UR_DEPTH * 2, &q->ring, &p) != 0) {
    return 0;
  }
  for (int i = 0; i < UR_DEPTH; i++) {
    struct ur_entry *e = &q->entries[i];
    e->queue = q;
    e->buffer = malloc(UR_PREFIX + UR_PAYLOAD);
    if (e->buffer == NULL) {
      return 0;
    }
    e->iov[0] = (struct iovec){&e->header, sizeof e->header};
    e->iov[1] = (struct iovec){e->buffer + UR_PREFIX, UR_PAYLOAD};
  }
  return 1;
}

static void *ur_loop(void *arg) {
  struct ur_queue *q = arg;
  char name[16];
  snprintf(name, sizeof name, "denyfs-uring%d", q->qid);
  pthread_setname_np(pthread_self(), name);
  if (ur_report(ur_setup(q)) < 0) {
    return NULL;
  }
  for (int i = 0; i < UR_DEPTH; i++) {
    ur_prep(&q->entries[i], UR_CMD_REGISTER, 0);
  }
  int waiting = UR_DEPTH; /* entries the kernel holds */
  while (waiting > 0) {
    int r = io_uring_submit_and_wait(&q->ring, 1);
    if (r < 0 && r != -EINTR && r != -EAGAIN && r != -EBUSY) {
      /* The kernel holds this queue's entries: without this thread, requests from this core
       * would wait for ever. Ending the daemon fails closed (the mount answers ENOTCONN) and the
       * mount goes (see hand_auto_unmount_to_child). */
      fprintf(stderr, "pushgate-denyfs: io_uring queue %d: %s\n", q->qid, strerror(-r));
      _exit(1);
    }
    struct io_uring_cqe *cqe;
    while (io_uring_peek_cqe(&q->ring, &cqe) == 0) {
      struct ur_entry *e = io_uring_cqe_get_data(cqe);
      int res = cqe->res;
      io_uring_cqe_seen(&q->ring, cqe);
      if (res == -EAGAIN || res == -EINTR) { /* try the same command again, as libfuse does */
        ur_prep(e, e->cmd, e->commit_id);
        continue;
      }
      if (res < 0) {
        /* The connection ends (ENOTCONN, ECANCELED), or the kernel refused the registration
         * and serves the connection through /dev/fuse: this entry is done. */
        waiting--;
        continue;
      }
      if (!__atomic_exchange_n(&ur_said, 1, __ATOMIC_RELAXED)) {
        /* For the launcher's log and the tests: the kernel took the offer. */
        pthread_mutex_lock(&out_lock);
        fputs("transport io_uring\n", stdout);
        fflush(stdout);
        pthread_mutex_unlock(&out_lock);
      }
      ur_serve(e);
    }
  }
  return NULL;
}

/* Called from the INIT callback: makes the queues and their threads, each with its ring and
 * buffers, and says whether all were made. */
static int ur_prepare(int fd) {
  n_queues = possible_cpus();
  if (n_queues <= 0 || n_queues > 4096) {
    return 0;
  }
  queues = calloc((size_t) n_queues, sizeof *queues);
  if (queues == NULL) {
    return 0;
  }
  ur_fd = fd;
  int started = 0;
  for (; started < n_queues; started++) {
    queues[started].qid = started;
    if (pthread_create(&queues[started].thread, NULL, ur_loop, &queues[started]) != 0) {
      break;
    }
  }
  pthread_mutex_lock(&ur_lock);
  while (ur_ready_count < started) {
    pthread_cond_wait(&ur_changed, &ur_lock);
  }
  int ok = started == n_queues && !ur_failed;
  if (!ok) {
    ur_go = -1;
    pthread_cond_broadcast(&ur_changed);
  }
  pthread_mutex_unlock(&ur_lock);
  return ok;
}

/* After the INIT reply: the queues register their entries. */
static void ur_start(void) {
  pthread_mutex_lock(&ur_lock);
  ur_go = 1;
  pthread_cond_broadcast(&ur_changed);
  pthread_mutex_unlock(&ur_lock);
}
#else
#define uring 0
static ssize_t ur_reply(struct iovec *iov, int count) {
  (void) iov;
  (void) count;
  return -1;
}
#endif

/* Once requests come over io_uring, /dev/fuse brings only forgets (and interrupts). The kernel
 * hands over all the forgets queued at a read in one message: a short pause after each lets them
 * gather, one wake-up and one read for many instead of one each. */
static pthread_mutex_t forgets_lock = PTHREAD_MUTEX_INITIALIZER;
#define FORGET_PAUSE_NS (2 * 1000 * 1000)

static ssize_t read_request(int fd, void *buf, size_t len) {
#ifdef HAVE_LIBURING
  if (__atomic_load_n(&ur_said, __ATOMIC_RELAXED)) {
    pthread_mutex_lock(&forgets_lock);
    ssize_t n = read(fd, buf, len);
    uint32_t opcode = n >= PT_IN_HEADER ? u32_at(buf, 4) : 0;
    if (opcode == PT_FUSE_FORGET || opcode == PT_FUSE_BATCH_FORGET) {
      struct timespec pause = {0, FORGET_PAUSE_NS};
      nanosleep(&pause, NULL);
    }
    pthread_mutex_unlock(&forgets_lock);
    return n;
  }
#endif
  return read(fd, buf, len);
}

static ssize_t io_read(int fd, void *buf, size_t len, void *userdata) {
  (void) userdata;
  ssize_t n = read_request(fd, buf, len);
  if (n >= PT_IN_HEADER) {
    thread_opcode = u32_at(buf, 4);
    memcpy(&thread_unique, (char *) buf + 8, sizeof thread_unique);
    /* fuse_init_in: major, minor, max_readahead, flags, flags2 */
    if (thread_opcode == PT_FUSE_INIT && n >= PT_IN_HEADER + 20
        && (u32_at(buf, PT_IN_HEADER + 12) & PT_INIT_EXT)) {
      uint32_t flags2 = u32_at(buf, PT_IN_HEADER + 16);
      kernel_offers_passthrough = (flags2 & PT_PASSTHROUGH_FLAGS2) != 0;
#ifdef HAVE_LIBURING
      kernel_offers_uring = (flags2 & UR_OVER_IO_URING_FLAGS2) != 0;
#endif
    }
  }
  return n;
}

/* The reply to the request this thread read, if IOV is one: its argument, else NULL. */
static void *reply_arg(struct iovec *iov, int count, size_t *len) {
  uint64_t unique;
  if (count != 2 || iov[0].iov_len < 16) {
    return NULL;
  }
  memcpy(&unique, (char *) iov[0].iov_base + 8, sizeof unique);
  if (unique != thread_unique) {
    return NULL;
  }
  *len = iov[1].iov_len;
  return iov[1].iov_base;
}

static ssize_t io_writev(int fd, struct iovec *iov, int count, void *userdata) {
  (void) userdata;
  size_t len;
  char *arg;
  if ((passthrough || uring) && thread_opcode == PT_FUSE_INIT
      && (arg = reply_arg(iov, count, &len)) != NULL && len >= 40) {
    /* fuse_init_out: flags at 12, flags2 at 32, max_stack_depth at 36 */
    put_u32(arg, 12, u32_at(arg, 12) | PT_INIT_EXT);
    if (passthrough) {
      put_u32(arg, 32, u32_at(arg, 32) | PT_PASSTHROUGH_FLAGS2);
      put_u32(arg, 36, PT_MAX_STACK_DEPTH);
    }
#ifdef HAVE_LIBURING
    if (uring) {
      put_u32(arg, 32, u32_at(arg, 32) | UR_OVER_IO_URING_FLAGS2);
      ssize_t n = writev(fd, iov, count);
      ur_start(); /* the kernel took the reply (or the connection is gone: the threads end) */
      return n;
    }
#endif
  } else if (thread_backing_id > 0 && (arg = reply_arg(iov, count, &len)) != NULL) {
    /* fuse_open_out (fh, open_flags, backing_id), after a fuse_entry_out for CREATE */
    size_t at = thread_opcode == PT_FUSE_CREATE ? PT_ENTRY_OUT : 0;
    if (len == at + 16) {
      put_u32(arg, at + 8, u32_at(arg, at + 8) | PT_FOPEN_PASSTHROUGH);
      put_u32(arg, at + 12, (uint32_t) thread_backing_id);
    }
  }
  ssize_t taken = ur_reply(iov, count);
  if (taken != -1) {
    return taken >= 0 ? taken : -1;
  }
  return writev(fd, iov, count);
}

static int session_fd(void) {
  return fuse_session_fd(the_session);
}

/* The backing file for an open of I whose descriptor (the caller's, judged) is FD: its id, 0 to
 * serve the open without passthrough, or a negative errno. The kernel opens a backing file of its
 * own for every FUSE open, with that open's flags, on the path of the registered file
 * (fuse_passthrough_open: backing_file_open(..., file->f_flags, &fb->file->f_path, ...)): the
 * registered file's own mode and flags are never used for a read or a write. So the caller's judged
 * descriptor is registered as it is, and every later open of the inode reuses it whatever its
 * mode. Nothing is opened for write that the caller did not ask to write: on an overlayfs
 * underneath, an open for write copies the file up, and anywhere it counts as a writer (a
 * host-side exec of the file fails with ETXTBSY). It is kept until the kernel forgets the inode,
 * so the next open costs nothing (a file written, then read back). Called as the caller. */
static int backing_for(struct inode *i, int fd) {
  pthread_mutex_lock(&table_lock);
  if (!passthrough) {
    pthread_mutex_unlock(&table_lock);
    return 0;
  }
  if (i->backing_id > 0) {
    int id = i->backing_id;
    pthread_mutex_unlock(&table_lock);
    return id;
  }
  struct pt_backing_map map = {fd, 0, 0};
  int id = ioctl(session_fd(), PT_DEV_IOC_BACKING_OPEN, &map);
  int err = errno;
  if (id > 0) {
    i->backing_id = id;
    backing_registered = 1;
  } else if (!backing_registered
      && (err == EPERM || err == EOPNOTSUPP || err == ENOTTY || err == EINVAL)) {
    /* The kernel did not take up the offer (or refuses this daemon): as no open has a backing
     * file yet, every open from here on is served the plain way, consistently. */
    passthrough = 0;
    id = 0;
  }
  pthread_mutex_unlock(&table_lock);
  return id >= 0 ? id : -err;
}

/* The inode is forgotten: no open of it is left. */
static void drop_backing(struct inode *i) {
  if (i->backing_id > 0) {
    uint32_t id = (uint32_t) i->backing_id;
    ioctl(session_fd(), PT_DEV_IOC_BACKING_CLOSE, &id);
  }
}

/* Replies to an OPEN or CREATE of I whose descriptor is FD: through passthrough when it is on.
 * ENTRY is the new name for a CREATE, else NULL. On failure the descriptor is closed. */
static void reply_opened(fuse_req_t req, struct inode *i, int fd, struct fuse_file_info *fi,
    const struct fuse_entry_param *entry) {
  int id = 0;
  if (passthrough) { /* read without the lock: a stale 1 finds out in backing_for */
    id = backing_for(i, fd);
    if (id < 0) {
      close(fd);
      if (entry != NULL) {
        forget_one(inode_of(entry->ino), 1);
      }
      fuse_reply_err(req, -id);
      return;
    }
  }
  fi->fh = (uint64_t) (unsigned) fd;
  /* The kernel keeps the file's pages from one open to the next; it drops them when the file's
   * size or modification time changes (FUSE_CAP_AUTO_INVAL_DATA), as after a host-side edit.
   * Under passthrough the pages are the file underneath's own. */
  fi->keep_cache = id == 0;
  thread_backing_id = id;
  int res = entry != NULL ? fuse_reply_create(req, entry, fi) : fuse_reply_open(req, fi);
  thread_backing_id = 0;
  if (res == -ENOENT) { /* interrupted: the kernel forgot it */
    close(fd);
    if (entry != NULL) {
      forget_one(inode_of(entry->ino), 1);
    }
  }
}

static int writes(int flags) {
  return (flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC) != 0;
}

/* The flags to open the file underneath with. Under the writeback cache the kernel may read pages
 * of a file opened write-only (to fill a partly written page), and it keeps the file's size
 * itself, so appends arrive as writes at an offset. (Under passthrough the kernel opens its own
 * backing file per open, with the open's own flags: the descriptor is opened as asked, but for
 * O_DIRECT.) Not O_DIRECT: the kernel already sends such a file's reads and writes here uncached,
 * and a write's data lies in the request (after its headers, in /dev/fuse's buffer or a ring
 * entry's) with no block alignment, which the file system underneath refuses (EINVAL). */
static int source_flags(int flags) {
  flags &= ~(O_CREAT | O_EXCL | O_NOCTTY | O_NOFOLLOW | O_DIRECT);
  if (writeback) {
    if ((flags & O_ACCMODE) == O_WRONLY) {
      flags = (flags & ~O_ACCMODE) | O_RDWR;
    }
    flags &= ~O_APPEND;
  }
  return flags | O_CLOEXEC;
}

static void dfs_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi) {
  AS_CALLER(req);
  struct inode *i = inode_of(ino);
  if (writes(fi->flags)) {
    REFUSE_INODE(req, i);
  }
  if (!S_ISREG(i->type)) {
    fuse_reply_err(req, S_ISLNK(i->type) ? ELOOP : EACCES); /* the kernel opens no other kind */
    return;
  }
  char proc[64];
  proc_path(i->fd, proc, sizeof proc);
  int fd = open(proc, source_flags(fi->flags));
  if (fd < 0 && errno == EACCES && (fi->flags & O_ACCMODE) == O_WRONLY) {
    fd = open(proc, (source_flags(fi->flags) & ~O_ACCMODE) | O_WRONLY); /* a write-only file */
  }
  if (fd < 0) {
    fuse_reply_err(req, errno);
    return;
  }
  reply_opened(req, i, fd, fi, NULL);
}

static void dfs_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
    struct fuse_file_info *fi) {
  AS_CALLER(req);
  struct inode *p = inode_of(parent);
  REFUSE_NAME(req, p, name);
  if (bad_name(name)) {
    fuse_reply_err(req, EINVAL);
    return;
  }
  int fd = openat(p->fd, name, source_flags(fi->flags) | (fi->flags & O_EXCL) | O_CREAT | O_NOFOLLOW,
      mode);
  if (fd < 0) {
    fuse_reply_err(req, errno);
    return;
  }
  reply_made(req, p, name, fd, fi);
}

static void dfs_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
    struct fuse_file_info *fi) {
  (void) ino;
  /* Handed to libfuse as a descriptor: it splices the file's pages to the kernel when it can. */
  struct fuse_bufvec buf = FUSE_BUFVEC_INIT(size);
  buf.buf[0].flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK;
  buf.buf[0].fd = fh_fd(fi);
  buf.buf[0].pos = off;
  fuse_reply_data(req, &buf, FUSE_BUF_SPLICE_MOVE);
}

static void dfs_write_buf(fuse_req_t req, fuse_ino_t ino, struct fuse_bufvec *in, off_t off,
    struct fuse_file_info *fi) {
  (void) ino;
  struct fuse_bufvec out = FUSE_BUFVEC_INIT(fuse_buf_size(in));
  out.buf[0].flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK;
  out.buf[0].fd = fh_fd(fi);
  out.buf[0].pos = off;
  ssize_t n = fuse_buf_copy(&out, in, 0);
  if (n < 0) {
    fuse_reply_err(req, (int) -n);
  } else {
    fuse_reply_write(req, (size_t) n);
  }
}

/* No flush operation: the daemon's writes report their errors at once, so close() of the source
 * descriptor has nothing deferred to report, and without the operation the kernel stops sending
 * FLUSH (one per close() inside the sandbox, two for a shell redirection) after the first. */
static void dfs_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi) {
  (void) ino;
  close(fh_fd(fi));
  fuse_reply_err(req, 0);
}

static void dfs_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi) {
  (void) ino;
  int res = datasync ? fdatasync(fh_fd(fi)) : fsync(fh_fd(fi));
  fuse_reply_err(req, res == 0 ? 0 : errno);
}

static void dfs_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t off, off_t len,
    struct fuse_file_info *fi) {
  (void) ino;
  fuse_reply_err(req, fallocate(fh_fd(fi), mode, off, len) == 0 ? 0 : errno);
}

static void dfs_lseek(fuse_req_t req, fuse_ino_t ino, off_t off, int whence,
    struct fuse_file_info *fi) {
  (void) ino;
  off_t res = lseek(fh_fd(fi), off, whence);
  if (res < 0) {
    fuse_reply_err(req, errno);
  } else {
    fuse_reply_lseek(req, res);
  }
}

/* access(2) and chdir: the kernel asks, as it checks no permissions itself. */
static void dfs_access(fuse_req_t req, fuse_ino_t ino, int mask) {
  AS_CALLER(req);
  struct inode *i = inode_of(ino);
  if (S_ISLNK(i->type)) {
    fuse_reply_err(req, 0); /* a link's own bits are never checked */
    return;
  }
  char proc[64];
  proc_path(i->fd, proc, sizeof proc);
  fuse_reply_err(req, faccessat(AT_FDCWD, proc, mask, AT_EACCESS) == 0 ? 0 : errno);
}

/* ---- directories ---- */

struct dir {
  DIR *dp;
  struct dirent *entry; /* read but not yet handed out (the buffer was full) */
  off_t offset;
};

static void dfs_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi) {
  AS_CALLER(req);
  struct dir *d = calloc(1, sizeof *d);
  if (d == NULL) {
    fuse_reply_err(req, ENOMEM);
    return;
  }
  int fd = openat(inode_of(ino)->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || (d->dp = fdopendir(fd)) == NULL) {
    int err = errno;
    if (fd >= 0) {
      close(fd);
    }
    free(d);
    fuse_reply_err(req, err);
    return;
  }
  fi->fh = (uint64_t) (uintptr_t) d;
  /* The kernel may keep a listing until the directory changes (through the layer, or its
   * modification time when its attributes are next fetched). */
  fi->keep_cache = 1;
  fi->cache_readdir = 1;
  if (fuse_reply_open(req, fi) == -ENOENT) {
    closedir(d->dp);
    free(d);
  }
}

static int dot_or_dotdot(const char *name) {
  return strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
}

static void do_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
    struct fuse_file_info *fi, int plus) {
  struct dir *d = (struct dir *) (uintptr_t) fi->fh;
  struct inode *parent = inode_of(ino);
  char *buf = malloc(size);
  if (buf == NULL) {
    fuse_reply_err(req, ENOMEM);
    return;
  }
  if (off != d->offset) {
    seekdir(d->dp, off);
    d->entry = NULL;
    d->offset = off;
  }
  size_t used = 0;
  int err = 0;
  for (;;) {
    if (d->entry == NULL) {
      errno = 0;
      d->entry = readdir(d->dp);
      if (d->entry == NULL) {
        err = errno;
        break;
      }
    }
    struct dirent *de = d->entry;
    off_t next = de->d_off;
    size_t n;
    if (plus) {
      /* readdirplus: each entry with its attributes, as a lookup (which the kernel forgets as
       * it forgets a lookup), sparing a LOOKUP per name for rm -r, find and git status. */
      struct fuse_entry_param e;
      memset(&e, 0, sizeof e);
      if (dot_or_dotdot(de->d_name)) {
        e.attr.st_ino = de->d_ino;
        e.attr.st_mode = (mode_t) DTTOIF(de->d_type);
      } else if (do_lookup(parent, de->d_name, &e) != 0) {
        /* gone since it was listed, or no descriptor left: listed without attributes */
        memset(&e, 0, sizeof e);
        e.attr.st_ino = de->d_ino;
        e.attr.st_mode = (mode_t) DTTOIF(de->d_type);
      }
      n = fuse_add_direntry_plus(req, buf + used, size - used, de->d_name, &e, next);
      if (n > size - used) {
        if (e.ino != 0) {
          forget_one(inode_of(e.ino), 1);
        }
        break;
      }
    } else {
      struct stat st;
      memset(&st, 0, sizeof st);
      st.st_ino = de->d_ino;
      st.st_mode = (mode_t) DTTOIF(de->d_type);
      n = fuse_add_direntry(req, buf + used, size - used, de->d_name, &st, next);
      if (n > size - used) {
        break;
      }
    }
    used += n;
    d->entry = NULL;
    d->offset = next;
  }
  if (err != 0 && used == 0) {
    fuse_reply_err(req, err);
  } else {
    fuse_reply_buf(req, buf, used);
  }
  free(buf);
}

static void dfs_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
    struct fuse_file_info *fi) {
  do_readdir(req, ino, size, off, fi, 0);
}

static void dfs_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
    struct fuse_file_info *fi) {
  AS_CALLER(req);
  do_readdir(req, ino, size, off, fi, 1);
}

static void dfs_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi) {
  (void) ino;
  struct dir *d = (struct dir *) (uintptr_t) fi->fh;
  closedir(d->dp);
  free(d);
  fuse_reply_err(req, 0);
}

static void dfs_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync,
    struct fuse_file_info *fi) {
  (void) ino;
  int fd = dirfd(((struct dir *) (uintptr_t) fi->fh)->dp);
  int res = datasync ? fdatasync(fd) : fsync(fd);
  fuse_reply_err(req, res == 0 ? 0 : errno);
}

/* ---- the connection ---- */

static void dfs_init(void *userdata, struct fuse_conn_info *conn) {
  (void) userdata;
  /* Writes up to 1 MiB per request (the kernel's cap), fewer round trips for large files. */
  conn->max_write = 1 << 20;
  unsigned want = FUSE_CAP_SPLICE_WRITE | FUSE_CAP_SPLICE_MOVE | FUSE_CAP_AUTO_INVAL_DATA
      | FUSE_CAP_READDIRPLUS | FUSE_CAP_PARALLEL_DIROPS | FUSE_CAP_ATOMIC_O_TRUNC
      | FUSE_CAP_ASYNC_READ;
  conn->want |= want & conn->capable;
  /* Always readdirplus (not only for the first listing): see do_readdir. */
  conn->want &= ~(unsigned) FUSE_CAP_READDIRPLUS_AUTO;
  /* Not splice_read: the kernel would then hand every request (a lookup, a create) through a
   * pipe, two more system calls each, for a gain only on large writes. */
  conn->want &= ~(unsigned) FUSE_CAP_SPLICE_READ;
  /* The kernel clears set-user-ID bits on write and chown itself (a SETATTR, as the caller). */
  conn->want &= ~(unsigned) FUSE_CAP_HANDLE_KILLPRIV;
  /* Passthrough when the kernel offers it and the daemon may register backing files (root):
   * reads and writes never come here. See "passthrough" above. The kernel turns it down when
   * the writeback cache is asked for too. */
#ifdef HAVE_LIBURING
  /* Replies go into ring entries through the writev hook; a spliced reply would bypass it. */
  if (uring_allowed && kernel_offers_uring) {
    conn->want &= ~(unsigned) (FUSE_CAP_SPLICE_WRITE | FUSE_CAP_SPLICE_MOVE);
    uring = ur_prepare(session_fd());
  }
#endif
  if (passthrough_allowed && kernel_offers_passthrough && running_as_root) {
    conn->want &= ~(unsigned) FUSE_CAP_WRITEBACK_CACHE;
    passthrough = 1;
    return;
  }
  /* Else the writeback cache: the kernel gathers a file's writes and sends them when it is closed
   * (tar's 10 KiB writes become one), and keeps the pages it wrote for the next read. It cannot
   * let a denied name be written: a write needs a descriptor opened for write, and that open
   * (or the truncation, the create) came here and was judged. See docs/sandbox.md. */
  if (conn->capable & FUSE_CAP_WRITEBACK_CACHE) {
    conn->want |= FUSE_CAP_WRITEBACK_CACHE;
    writeback = 1;
  }
}

static const struct fuse_lowlevel_ops ops = {
    .init = dfs_init,
    .lookup = dfs_lookup,
    .forget = dfs_forget,
    .forget_multi = dfs_forget_multi,
    .getattr = dfs_getattr,
    .setattr = dfs_setattr,
    .readlink = dfs_readlink,
    .mknod = dfs_mknod,
    .mkdir = dfs_mkdir,
    .unlink = dfs_unlink,
    .rmdir = dfs_rmdir,
    .symlink = dfs_symlink,
    .rename = dfs_rename,
    .link = dfs_link,
    .open = dfs_open,
    .read = dfs_read,
    .write_buf = dfs_write_buf,
    .release = dfs_release,
    .fsync = dfs_fsync,
    .opendir = dfs_opendir,
    .readdir = dfs_readdir,
    .readdirplus = dfs_readdirplus,
    .releasedir = dfs_releasedir,
    .fsyncdir = dfs_fsyncdir,
    .statfs = dfs_statfs,
    .create = dfs_create,
    .fallocate = dfs_fallocate,
    .lseek = dfs_lseek,
    .access = dfs_access,
};

/* ---- lifetime ---- */

/* Who ends the session: the first to take it unmounts, and the other never touches the session
 * again (the watcher exits; the main thread would free what the watcher still uses). */
static pthread_mutex_t ending = PTHREAD_MUTEX_INITIALIZER;

/* The launcher holds our standard input open for the run; its end (closed, or the launcher died)
 * ends the layer: unmount, then exit. (auto_unmount covers this process being killed; as a user
 * other than root, fusermount3's watchdog was seen not to unmount, so the way out that does not
 * depend on it unmounts itself. fusermount3 may then say "failed to unmount": already done.) */
static void *watch_stdin(void *arg) {
  (void) arg;
  char b[256], line[64];
  size_t n = 0;
  int too_long = 0;
  ssize_t r;
  /* Meanwhile it carries the launcher's answers, one a line (take_answer). */
  while ((r = read(STDIN_FILENO, b, sizeof b)) > 0 || (r < 0 && errno == EINTR)) {
    for (ssize_t k = 0; k < r; k++) {
      if (b[k] == '\n') {
        line[n] = 0;
        if (!too_long) {
          take_answer(line);
        }
        n = 0;
        too_long = 0;
      } else if (n < sizeof line - 1) {
        line[n++] = b[k];
      } else {
        too_long = 1;
      }
    }
  }
  pthread_mutex_lock(&ending);
  fuse_session_unmount(the_session);
  _exit(0);
  return NULL;
}

/* auto_unmount: fusermount3 unmounts when this process's end of their socket closes, if it then
 * finds the connection ended (opening the mount fails with ENOTCONN), never a live one. With
 * io_uring the kernel ends a killed daemon's connection only when it tears the rings down, just
 * after the process is gone: fusermount3 would look too early, find it alive and leave the mount.
 * So a child holds the socket instead: when this process ends it waits (up to a minute) until a
 * statfs of the mount says the connection ended (ENOTCONN, what fusermount3 looks for) or the
 * mount is gone, then exits, and fusermount3 looks. The child holds nothing else. */
#define UNMOUNT_FUSE_MAGIC 0x65735546 /* FUSE_SUPER_MAGIC */
static void hand_auto_unmount_to_child(const char *mountpoint) {
  int sock = -1, sockets = 0;
  DIR *d = opendir("/proc/self/fd");
  if (d == NULL) {
    return;
  }
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    char target[64];
    ssize_t n = readlinkat(dirfd(d), e->d_name, target, sizeof target - 1);
    if (n > 0 && (target[n] = 0, strncmp(target, "socket:", 7) == 0)) {
      sock = atoi(e->d_name);
      sockets++;
    }
  }
  closedir(d);
  int alive[2]; /* the write end stays here (and out of any program this process runs) */
  if (sockets != 1 || pipe2(alive, O_CLOEXEC) != 0) {
    return;
  }
  pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_NAME, "denyfs-unmount");
    if (dup2(sock, 3) < 0 || dup2(alive[0], 4) < 0) {
      _exit(1);
    }
    int null = open("/dev/null", O_RDWR);
    for (int fd = 0; fd < 3; fd++) {
      dup2(null, fd);
    }
    syscall(SYS_close_range, 5u, ~0u, 0u); /* the /dev/fuse descriptor above all */
    char b;
    ssize_t r;
    while ((r = read(4, &b, 1)) > 0 || (r < 0 && errno == EINTR)) {
    } /* end of file: this process has ended */
    alarm(60);
    for (;;) {
      struct statfs sf;
      if (statfs(mountpoint, &sf) == 0 ? sf.f_type != UNMOUNT_FUSE_MAGIC
          : errno == ENOTCONN || errno == ENOENT) {
        _exit(0);
      }
      /* ECONNABORTED, ECANCELED: a request cut off while the kernel ends the connection */
      struct timespec pause = {0, 10 * 1000 * 1000};
      nanosleep(&pause, NULL);
    }
  }
  close(alive[0]);
  if (pid > 0) {
    close(sock);
  } else {
    close(alive[1]);
  }
}

static void usage(const char *why) {
  fprintf(stderr, "pushgate-denyfs: %s\n", why);
  exit(2);
}

/* One O_PATH descriptor per inode the kernel holds: as many as the limit allows (as root, up to
 * the system's ceiling). */
static void raise_fd_limit(void) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0) {
    return;
  }
  if (running_as_root) {
    FILE *f = fopen("/proc/sys/fs/nr_open", "r");
    unsigned long ceiling;
    if (f != NULL && fscanf(f, "%lu", &ceiling) == 1 && ceiling > rl.rlim_max) {
      struct rlimit up = {ceiling, ceiling};
      if (setrlimit(RLIMIT_NOFILE, &up) == 0) {
        rl = up;
      }
    }
    if (f != NULL) {
      fclose(f);
    }
  }
  rl.rlim_cur = rl.rlim_max;
  setrlimit(RLIMIT_NOFILE, &rl);
}

int main(int argc, char **argv) {
  const char *source = NULL, *mountpoint = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (i + 1 >= argc) {
      usage("every option takes a value");
    }
    const char *v = argv[++i];
    if (strcmp(a, "--source") == 0) {
      source = v;
    } else if (strcmp(a, "--mountpoint") == 0) {
      mountpoint = v;
    } else if (strcmp(a, "--deny") == 0 && n_deny_globs < MAX_PATTERNS) {
      deny_globs[n_deny_globs++] = v;
    } else if (strcmp(a, "--deny-path") == 0 && n_deny_paths < MAX_PATTERNS) {
      deny_paths[n_deny_paths++] = v;
    } else if (strcmp(a, "--judged-config") == 0 && n_judged_configs < MAX_PATTERNS
        && v[0] == '/') {
      judged_configs[n_judged_configs++] = v;
    } else if (strcmp(a, "--host-path") == 0 && n_host_paths < MAX_PATTERNS) {
      host_paths[n_host_paths++] = v;
    } else if (strcmp(a, "--dependency-dir") == 0 && n_dependency_dirs < MAX_PATTERNS
        && strchr(v, '/') == NULL && *v != 0) {
      dependency_dirs[n_dependency_dirs++] = v;
    } else if (strcmp(a, "--uring") == 0 && (strcmp(v, "auto") == 0 || strcmp(v, "off") == 0)) {
#ifdef HAVE_LIBURING
      uring_allowed = strcmp(v, "auto") == 0;
#endif
    } else if (strcmp(a, "--passthrough") == 0 && (strcmp(v, "auto") == 0 || strcmp(v, "off") == 0)) {
      passthrough_allowed = strcmp(v, "auto") == 0;
    } else {
      usage("unknown option or too many patterns");
    }
  }
  if (source == NULL || mountpoint == NULL) {
    usage("--source and --mountpoint are required");
  }
  running_as_root = geteuid() == 0;
  prepare_patterns();
  raise_fd_limit();
  root.fd = open(source, O_PATH | O_DIRECTORY | O_CLOEXEC);
  struct stat st;
  if (root.fd < 0 || fstat(root.fd, &st) != 0) {
    fprintf(stderr, "pushgate-denyfs: cannot open %s: %s\n", source, strerror(errno));
    return 1;
  }
  root.type = S_IFDIR;
  root.dev = st.st_dev;
  root.ino = st.st_ino;
  root.nlookup = 2;
  if (rel_path_of_fd(root.fd, root_path, sizeof root_path) != 0) { /* root_path_len is 0 here */
    fprintf(stderr, "pushgate-denyfs: cannot tell the path of %s\n", source);
    return 1;
  }
  root_path_len = strlen(root_path);
  if (root_path[0] != '/') {
    fprintf(stderr, "pushgate-denyfs: %s has no absolute path\n", source);
    return 1;
  }
  buckets = calloc(n_buckets, sizeof *buckets);
  if (buckets == NULL) {
    fprintf(stderr, "pushgate-denyfs: out of memory\n");
    return 1;
  }
  umask(0); /* the kernel applied the caller's umask already */

  char *fargv[8];
  int fargc = 0;
  fargv[fargc++] = argv[0];
  fargv[fargc++] = "-o";
  fargv[fargc++] = running_as_root
      ? "allow_other,auto_unmount,fsname=pushgate-denyfs,subtype=denyfs"
      : "auto_unmount,fsname=pushgate-denyfs,subtype=denyfs";
  struct fuse_args args = FUSE_ARGS_INIT(fargc, fargv);
  the_session = fuse_session_new(&args, &ops, sizeof ops, NULL);
  if (the_session == NULL) {
    fprintf(stderr, "pushgate-denyfs: cannot set up the file system\n");
    return 1;
  }
  if (fuse_session_mount(the_session, mountpoint) != 0) {
    fprintf(stderr, "pushgate-denyfs: cannot mount on %s (is /dev/fuse there, fusermount3 "
        "installed?)\n", mountpoint);
    return 1;
  }
  hand_auto_unmount_to_child(mountpoint);
  static const struct fuse_custom_io io = {.writev = io_writev, .read = io_read};
  if (fuse_session_custom_io(the_session, &io, fuse_session_fd(the_session)) != 0) {
    fprintf(stderr, "pushgate-denyfs: cannot set up the connection's I/O\n");
    fuse_session_unmount(the_session);
    return 1;
  }
  pthread_t watcher;
  if (pthread_create(&watcher, NULL, watch_stdin, NULL) != 0) {
    fuse_session_unmount(the_session);
    return 1;
  }
  printf("ready\n");
  fflush(stdout);
  struct fuse_loop_config *cfg = fuse_loop_cfg_create();
  /* Enough threads waiting that a request rarely waits for one to be made: git and make run
   * several processes at once. */
  fuse_loop_cfg_set_max_threads(cfg, 16);
  fuse_loop_cfg_set_idle_threads(cfg, 8);
  int res = fuse_session_loop_mt(the_session, cfg);
  pthread_mutex_lock(&ending); /* held for good when the watcher is ending it: it exits */
  fuse_session_unmount(the_session);
  if (uring) {
    _exit(res == 0 ? 0 : 1); /* a queue's thread may still be in the session */
  }
  fuse_session_destroy(the_session);
  return res == 0 ? 0 : 1;
}
