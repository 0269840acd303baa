/*
 * pushgate-denyfs: a FUSE file system layered over one writable mount of a sandboxed run. It passes
 * every operation through to the directory underneath, except that it refuses (EACCES) every
 * write to a denied name: creating, opening for write, truncating, renaming onto or away from,
 * hard-linking, symlinking, removing or changing the attributes of a file whose name matches a
 * deny glob (.env, *.key, *.pem) or whose host path matches a protected-path pattern. Reading
 * stays allowed. Each refusal is one line on standard output: "file-write* RELATIVE/PATH".
 *
 * It runs outside the sandbox, as the launcher's user (root when bwrap is started as a user id of
 * its own: then allow_other, and files it creates are given to the caller). See docs/sandbox.md,
 * "Name-based write denies on Linux".
 *
 * Every path the kernel sends is resolved beneath the source directory with openat2
 * (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS) and the last component is never
 * followed: the kernel resolves symlinks itself inside the sandbox, so a path that leads through a
 * symlink here was raced into existence, and as root the daemon must not follow it out of the
 * tree.
 *
 * Usage: pushgate-denyfs --source DIR --mountpoint DIR [--deny GLOB]... [--deny-path PATTERN]...
 *            [--host-path SPELLING]...
 * It prints "ready" once mounted, and unmounts and exits when its standard input ends (the
 * launcher closed it, or died). The mount uses auto_unmount: fusermount3 unmounts it when this
 * process dies, even by SIGKILL.
 */
#define FUSE_USE_VERSION 312
#define _GNU_SOURCE
#include <fuse.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#define MAX_PATTERNS 256
/* How long the kernel may keep a name's lookup (found or not found) and a file's attributes
 * without asking again. Every write of a name is an operation (create, mknod, mkdir, rename,
 * link, symlink, unlink, open for write, setattr) that reaches the daemon whatever is cached, so a
 * cache cannot let a write bypass a deny; what it delays is seeing a change made to the source
 * directory from outside the layer (the host, not the sandbox), by at most this long. */
#define CACHE_SECONDS 60.0

static int root_fd = -1;
static const char *deny_globs[MAX_PATTERNS];
static int n_deny_globs;
static const char *deny_paths[MAX_PATTERNS];
static int n_deny_paths;
static const char *host_paths[MAX_PATTERNS];
static int n_host_paths;
static int running_as_root;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- deny decisions ---- */

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

/* Whether the file at PATH (relative to the mount, starting with /) may not be written. */
static int denied(const char *path) {
  const char *name = base_name(path);
  for (int i = 0; i < n_deny_globs; i++) {
    if (fnmatch(deny_globs[i], name, FNM_NOESCAPE) == 0) {
      return 1;
    }
  }
  char full[PATH_MAX * 2];
  for (int h = 0; h < n_host_paths; h++) {
    snprintf(full, sizeof full, "%s%s", host_paths[h], strcmp(path, "/") == 0 ? "" : path);
    for (int i = 0; i < n_deny_paths; i++) {
      if (path_matches(deny_paths[i], full)) {
        return 1;
      }
    }
  }
  return 0;
}

/* Reports a refusal: one line, every byte that is not printable ASCII as \xNN. */
static int refuse(const char *path) {
  char line[PATH_MAX * 4 + 32];
  size_t n = (size_t) snprintf(line, sizeof line, "file-write* ");
  for (const unsigned char *p = (const unsigned char *) path; *p && n < sizeof line - 6; p++) {
    if (*p < 0x20 || *p >= 0x7f || *p == '\\') {
      n += (size_t) snprintf(line + n, sizeof line - n, "\\x%02x", *p);
    } else {
      line[n++] = (char) *p;
    }
  }
  line[n++] = '\n';
  pthread_mutex_lock(&out_lock);
  fwrite(line, 1, n, stdout);
  fflush(stdout);
  pthread_mutex_unlock(&out_lock);
  return -EACCES;
}

#define DENY_IF(p)        \
  do {                    \
    if (denied(p)) {      \
      return refuse(p);   \
    }                     \
  } while (0)

/* ---- safe resolution beneath the source ---- */

static int open_beneath(const char *rel, int flags) {
  struct open_how how;
  memset(&how, 0, sizeof how);
  how.flags = (unsigned long long) (flags | O_CLOEXEC);
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  int fd = (int) syscall(SYS_openat2, root_fd, rel, &how, sizeof how);
  return fd < 0 ? -errno : fd;
}

/* The parent directory of PATH as an O_PATH descriptor, and its last component in *name. */
static int parent_of(const char *path, char *name) {
  const char *slash = strrchr(path, '/');
  if (slash == NULL || slash[1] == 0) {
    strcpy(name, ".");
    return open_beneath(".", O_PATH | O_DIRECTORY);
  }
  if (strlen(slash + 1) > NAME_MAX) {
    return -ENAMETOOLONG;
  }
  strcpy(name, slash + 1);
  size_t len = (size_t) (slash - path);
  char dir[PATH_MAX];
  if (len >= sizeof dir - 2) {
    return -ENAMETOOLONG;
  }
  dir[0] = '.';
  memcpy(dir + 1, path, len);
  dir[len + 1] = 0;
  return open_beneath(dir, O_PATH | O_DIRECTORY);
}

#define WITH_PARENT(path)          \
  char name[NAME_MAX + 1];         \
  int dfd = parent_of(path, name); \
  if (dfd < 0) {                   \
    return dfd;                    \
  }

static int done(int dfd, int res) {
  int err = res < 0 ? -errno : 0;
  close(dfd);
  return err;
}

static void give_to_caller(int dfd, const char *name) {
  if (running_as_root) {
    struct fuse_context *c = fuse_get_context();
    if (fchownat(dfd, name, c->uid, c->gid, AT_SYMLINK_NOFOLLOW) != 0) {
      /* The file stays root's; the caller cannot change it, which fails closed. */
    }
  }
}

/* ---- operations ---- */

static void *dfs_init(struct fuse_conn_info *conn, struct fuse_config *cfg) {
  (void) conn;
  cfg->use_ino = 1;
  cfg->readdir_ino = 1;
  cfg->nullpath_ok = 1;
  cfg->hard_remove = 1;
  cfg->entry_timeout = CACHE_SECONDS;
  cfg->attr_timeout = CACHE_SECONDS;
  cfg->negative_timeout = CACHE_SECONDS;
  return NULL;
}

static int dfs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi) {
  if (fi != NULL) {
    return fstat((int) fi->fh, st) == 0 ? 0 : -errno;
  }
  WITH_PARENT(path);
  return done(dfd, fstatat(dfd, name, st, AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH));
}

static int dfs_readlink(const char *path, char *buf, size_t size) {
  WITH_PARENT(path);
  ssize_t n = readlinkat(dfd, name, buf, size - 1);
  int err = n < 0 ? -errno : 0;
  close(dfd);
  if (n >= 0) {
    buf[n] = 0;
  }
  return err;
}

static int dfs_mknod(const char *path, mode_t mode, dev_t rdev) {
  DENY_IF(path);
  WITH_PARENT(path);
  int res = mknodat(dfd, name, mode, rdev);
  if (res == 0) {
    give_to_caller(dfd, name);
  }
  return done(dfd, res);
}

static int dfs_mkdir(const char *path, mode_t mode) {
  DENY_IF(path);
  WITH_PARENT(path);
  int res = mkdirat(dfd, name, mode);
  if (res == 0) {
    give_to_caller(dfd, name);
  }
  return done(dfd, res);
}

static int dfs_unlink(const char *path) {
  DENY_IF(path);
  WITH_PARENT(path);
  return done(dfd, unlinkat(dfd, name, 0));
}

static int dfs_rmdir(const char *path) {
  DENY_IF(path);
  WITH_PARENT(path);
  return done(dfd, unlinkat(dfd, name, AT_REMOVEDIR));
}

static int dfs_symlink(const char *target, const char *path) {
  DENY_IF(path);
  /* A link whose target is a denied name adds no way to write it (the kernel resolves the link
   * and the write is judged on the target), but it is refused all the same: it has no use other
   * than to reach the denied name. */
  if (denied(target)) {
    return refuse(path);
  }
  WITH_PARENT(path);
  int res = symlinkat(target, dfd, name);
  if (res == 0) {
    give_to_caller(dfd, name);
  }
  return done(dfd, res);
}

static int dfs_rename(const char *from, const char *to, unsigned int flags) {
  DENY_IF(from);
  DENY_IF(to);
  char fname[NAME_MAX + 1], tname[NAME_MAX + 1];
  int ffd = parent_of(from, fname);
  if (ffd < 0) {
    return ffd;
  }
  int tfd = parent_of(to, tname);
  if (tfd < 0) {
    close(ffd);
    return tfd;
  }
  int res = renameat2(ffd, fname, tfd, tname, flags);
  int err = res < 0 ? -errno : 0;
  close(ffd);
  close(tfd);
  return err;
}

static int dfs_link(const char *from, const char *to) {
  /* A second name for a denied file would be a name that is not denied. */
  DENY_IF(from);
  DENY_IF(to);
  char fname[NAME_MAX + 1], tname[NAME_MAX + 1];
  int ffd = parent_of(from, fname);
  if (ffd < 0) {
    return ffd;
  }
  int tfd = parent_of(to, tname);
  if (tfd < 0) {
    close(ffd);
    return tfd;
  }
  int res = linkat(ffd, fname, tfd, tname, 0);
  int err = res < 0 ? -errno : 0;
  close(ffd);
  close(tfd);
  return err;
}

/* An attribute change through an open descriptor still names a path when the file has one (a file
 * opened for reading is not thereby opened for fchmod, fchown or futimens). */
#define DENY_IF_NAMED(p)              \
  do {                                \
    if ((p) != NULL && denied(p)) {   \
      return refuse(p);               \
    }                                 \
  } while (0)

static int dfs_chmod(const char *path, mode_t mode, struct fuse_file_info *fi) {
  DENY_IF_NAMED(path);
  if (fi != NULL) {
    return fchmod((int) fi->fh, mode) == 0 ? 0 : -errno;
  }
  DENY_IF(path);
  WITH_PARENT(path);
  return done(dfd, fchmodat(dfd, name, mode, AT_SYMLINK_NOFOLLOW));
}

static int dfs_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi) {
  DENY_IF_NAMED(path);
  if (fi != NULL) {
    return fchown((int) fi->fh, uid, gid) == 0 ? 0 : -errno;
  }
  DENY_IF(path);
  WITH_PARENT(path);
  return done(dfd, fchownat(dfd, name, uid, gid, AT_SYMLINK_NOFOLLOW));
}

static int dfs_truncate(const char *path, off_t size, struct fuse_file_info *fi) {
  DENY_IF_NAMED(path);
  if (fi != NULL) {
    /* Only a descriptor opened for write can truncate, and open refused those on denied names. */
    return ftruncate((int) fi->fh, size) == 0 ? 0 : -errno;
  }
  DENY_IF(path);
  char rel[PATH_MAX + 2];
  snprintf(rel, sizeof rel, ".%s", path);
  int fd = open_beneath(rel, O_WRONLY | O_NOFOLLOW);
  if (fd < 0) {
    return fd;
  }
  int res = ftruncate(fd, size);
  int err = res < 0 ? -errno : 0;
  close(fd);
  return err;
}

static int dfs_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi) {
  DENY_IF_NAMED(path);
  if (fi != NULL) {
    return futimens((int) fi->fh, tv) == 0 ? 0 : -errno;
  }
  DENY_IF(path);
  WITH_PARENT(path);
  return done(dfd, utimensat(dfd, name, tv, AT_SYMLINK_NOFOLLOW));
}

static int writes(int flags) {
  return (flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC) != 0;
}

static int dfs_open(const char *path, struct fuse_file_info *fi) {
  if (writes(fi->flags)) {
    DENY_IF(path);
  }
  char rel[PATH_MAX + 2];
  snprintf(rel, sizeof rel, ".%s", path);
  int fd = open_beneath(rel, (fi->flags & ~(O_CREAT | O_EXCL)) | O_NOFOLLOW);
  if (fd < 0) {
    return fd;
  }
  fi->fh = (uint64_t) fd;
  return 0;
}

static int dfs_create(const char *path, mode_t mode, struct fuse_file_info *fi) {
  DENY_IF(path);
  WITH_PARENT(path);
  int fd = openat(dfd, name, fi->flags | O_CREAT | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) {
    return done(dfd, -1);
  }
  give_to_caller(dfd, name);
  close(dfd);
  fi->fh = (uint64_t) fd;
  return 0;
}

static int dfs_read(const char *path, char *buf, size_t size, off_t off,
    struct fuse_file_info *fi) {
  (void) path;
  ssize_t n = pread((int) fi->fh, buf, size, off);
  return n < 0 ? -errno : (int) n;
}

static int dfs_write(const char *path, const char *buf, size_t size, off_t off,
    struct fuse_file_info *fi) {
  (void) path;
  ssize_t n = pwrite((int) fi->fh, buf, size, off);
  return n < 0 ? -errno : (int) n;
}

static int dfs_statfs(const char *path, struct statvfs *st) {
  (void) path;
  return fstatvfs(root_fd, st) == 0 ? 0 : -errno;
}

/* No flush: the daemon's writes are pwrite calls that report their errors at once, so close()
 * of the source descriptor has nothing deferred to report. Without it the kernel stops sending
 * FLUSH (one per close() inside the sandbox, two for a shell redirection) after the first. */
static int dfs_release(const char *path, struct fuse_file_info *fi) {
  (void) path;
  close((int) fi->fh);
  return 0;
}

static int dfs_fsync(const char *path, int datasync, struct fuse_file_info *fi) {
  (void) path;
  int res = datasync ? fdatasync((int) fi->fh) : fsync((int) fi->fh);
  return res == 0 ? 0 : -errno;
}

static int dfs_fallocate(const char *path, int mode, off_t off, off_t len,
    struct fuse_file_info *fi) {
  (void) path;
  return fallocate((int) fi->fh, mode, off, len) == 0 ? 0 : -errno;
}

static off_t dfs_lseek(const char *path, off_t off, int whence, struct fuse_file_info *fi) {
  (void) path;
  off_t res = lseek((int) fi->fh, off, whence);
  return res < 0 ? -errno : res;
}

static int dfs_opendir(const char *path, struct fuse_file_info *fi) {
  char rel[PATH_MAX + 2];
  snprintf(rel, sizeof rel, ".%s", path);
  int fd = open_beneath(rel, O_RDONLY | O_DIRECTORY);
  if (fd < 0) {
    return fd;
  }
  DIR *d = fdopendir(fd);
  if (d == NULL) {
    int err = -errno;
    close(fd);
    return err;
  }
  fi->fh = (uint64_t) (uintptr_t) d;
  return 0;
}

static int dfs_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
    struct fuse_file_info *fi, enum fuse_readdir_flags flags) {
  (void) path;
  (void) flags;
  DIR *d = (DIR *) (uintptr_t) fi->fh;
  if (off == 0) {
    rewinddir(d);
  } else {
    seekdir(d, off);
  }
  struct dirent *e;
  errno = 0;
  while ((e = readdir(d)) != NULL) {
    struct stat st;
    enum fuse_fill_dir_flags fill_flags = 0;
    memset(&st, 0, sizeof st);
    st.st_ino = e->d_ino;
    st.st_mode = (mode_t) (DTTOIF(e->d_type));
    /* readdirplus: the entry's attributes with it, which spares the kernel a lookup per name
     * (rm -r, find, git status). One component, not followed: safe as every other fstatat. */
    if ((flags & FUSE_READDIR_PLUS) && strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0
        && fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
      fill_flags = FUSE_FILL_DIR_PLUS;
    }
    if (fill(buf, e->d_name, &st, e->d_off, fill_flags)) { /* full: the kernel asks again */
      break;
    }
  }
  return 0;
}

static int dfs_releasedir(const char *path, struct fuse_file_info *fi) {
  (void) path;
  closedir((DIR *) (uintptr_t) fi->fh);
  return 0;
}

static int dfs_fsyncdir(const char *path, int datasync, struct fuse_file_info *fi) {
  (void) path;
  int fd = dirfd((DIR *) (uintptr_t) fi->fh);
  int res = datasync ? fdatasync(fd) : fsync(fd);
  return res == 0 ? 0 : -errno;
}

static const struct fuse_operations ops = {
    .init = dfs_init,
    .getattr = dfs_getattr,
    .readlink = dfs_readlink,
    .mknod = dfs_mknod,
    .mkdir = dfs_mkdir,
    .unlink = dfs_unlink,
    .rmdir = dfs_rmdir,
    .symlink = dfs_symlink,
    .rename = dfs_rename,
    .link = dfs_link,
    .chmod = dfs_chmod,
    .chown = dfs_chown,
    .truncate = dfs_truncate,
    .open = dfs_open,
    .read = dfs_read,
    .write = dfs_write,
    .statfs = dfs_statfs,
    .release = dfs_release,
    .fsync = dfs_fsync,
    .opendir = dfs_opendir,
    .readdir = dfs_readdir,
    .releasedir = dfs_releasedir,
    .fsyncdir = dfs_fsyncdir,
    .utimens = dfs_utimens,
    .create = dfs_create,
    .fallocate = dfs_fallocate,
    .lseek = dfs_lseek,
};

/* ---- lifetime ---- */

static struct fuse *the_fuse;

/* The launcher holds our standard input open for the run; its end (closed, or the launcher died)
 * ends the layer: unmount, then exit. (auto_unmount covers this process being killed; as a user
 * other than root, fusermount3's watchdog was seen not to unmount, so the way out that does not
 * depend on it unmounts itself. fusermount3 may then say "failed to unmount": already done.) */
static void *watch_stdin(void *arg) {
  (void) arg;
  char b[256];
  while (read(STDIN_FILENO, b, sizeof b) > 0) {
  }
  fuse_unmount(the_fuse);
  _exit(0);
  return NULL;
}

static void usage(const char *why) {
  fprintf(stderr, "pushgate-denyfs: %s\n", why);
  exit(2);
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
    } else if (strcmp(a, "--host-path") == 0 && n_host_paths < MAX_PATTERNS) {
      host_paths[n_host_paths++] = v;
    } else {
      usage("unknown option or too many patterns");
    }
  }
  if (source == NULL || mountpoint == NULL) {
    usage("--source and --mountpoint are required");
  }
  root_fd = open(source, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (root_fd < 0) {
    fprintf(stderr, "pushgate-denyfs: cannot open %s: %s\n", source, strerror(errno));
    return 1;
  }
  running_as_root = geteuid() == 0;
  umask(0); /* the kernel applied the caller's umask already */

  char *fargv[8];
  int fargc = 0;
  fargv[fargc++] = argv[0];
  fargv[fargc++] = "-o";
  fargv[fargc++] = running_as_root
      ? "default_permissions,allow_other,auto_unmount,fsname=pushgate-denyfs,subtype=denyfs"
      : "default_permissions,auto_unmount,fsname=pushgate-denyfs,subtype=denyfs";
  struct fuse_args args = FUSE_ARGS_INIT(fargc, fargv);
  the_fuse = fuse_new(&args, &ops, sizeof ops, NULL);
  if (the_fuse == NULL) {
    fprintf(stderr, "pushgate-denyfs: cannot set up the file system\n");
    return 1;
  }
  if (fuse_mount(the_fuse, mountpoint) != 0) {
    fprintf(stderr, "pushgate-denyfs: cannot mount on %s (is /dev/fuse there, fusermount3 "
        "installed?)\n", mountpoint);
    return 1;
  }
  pthread_t watcher;
  if (pthread_create(&watcher, NULL, watch_stdin, NULL) != 0) {
    fuse_unmount(the_fuse);
    return 1;
  }
  printf("ready\n");
  fflush(stdout);
  struct fuse_loop_config *cfg = fuse_loop_cfg_create();
  int res = fuse_loop_mt(the_fuse, cfg);
  fuse_unmount(the_fuse);
  fuse_destroy(the_fuse);
  return res == 0 ? 0 : 1;
}
