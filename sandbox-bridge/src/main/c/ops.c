/* The operations (denyfs.h): each served on the inode table's descriptors as the caller, every
 * write of a name judged first (refused_name, refused_inode). */
#include "denyfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

int running_as_root;
static int writeback; /* the kernel caches writes (FUSE_CAP_WRITEBACK_CACHE) */
static int no_opendir; /* the kernel sends no OPENDIR (FUSE_CAP_NO_OPENDIR_SUPPORT) */
int writeback_allowed = 1;

/* fi->fh: the open file's descriptor underneath. */
static int fh_fd(const struct fuse_file_info *fi) {
  return (int) fi->fh;
}

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

/* Performs the request as its caller; else replies with the error and returns it. */
static int as_caller(fuse_req_t req) {
  int err = become_caller(req);
  if (err != 0) {
    fuse_reply_err(req, err);
  }
  return err;
}

/* The directory PARENT, where NAME is about to be made, changed or removed as the caller; NULL
 * when that is refused (the reply is sent). */
static struct inode *judged_parent(fuse_req_t req, fuse_ino_t parent, const char *name) {
  if (as_caller(req) != 0) {
    return NULL;
  }
  struct inode *p = inode_of(parent);
  if (refused_name(req, p, name)) {
    return NULL;
  }
  return p;
}

/* ---- lookups ---- */

static void dfs_lookup(fuse_req_t req, fuse_ino_t parent, const char *name) {
#ifdef DENYFS_LIBFUSE_URING
  if (fuse_req_is_uring(req)) {
    say_transport_uring();
  }
#endif
  if (as_caller(req) != 0) {
    return;
  }
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
  forget_one(req, inode_of(ino), nlookup);
  fuse_reply_none(req);
}

static void dfs_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *forgets) {
  for (size_t k = 0; k < count; k++) {
    forget_one(req, inode_of(forgets[k].ino), forgets[k].nlookup);
  }
  fuse_reply_none(req);
}

/* A name just made in PARENT by the daemon (as the caller: the file is the caller's): its
 * descriptor, registered. OPEN_FD is the new file's descriptor when one is open (create), else
 * -1. */
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
    forget_one(req, inode_of(e.ino), 1);
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
  shown_attrs(inode_of(ino), ino, &st);
  fuse_reply_attr(req, &st, CACHE_SECONDS);
}

#define CHANGES (FUSE_SET_ATTR_MODE | FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID | FUSE_SET_ATTR_SIZE \
    | FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_MTIME | FUSE_SET_ATTR_ATIME_NOW \
    | FUSE_SET_ATTR_MTIME_NOW | FUSE_SET_ATTR_CTIME)

static void dfs_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int valid,
    struct fuse_file_info *fi) {
  if (as_caller(req) != 0) {
    return;
  }
  struct inode *i = inode_of(ino);
  if (valid & CHANGES) {
    /* chmod, chown, truncate and utimens of a denied name, through a descriptor too (a file
     * opened for reading is not thereby opened for fchmod, fchown or futimens). */
    if (refused_inode(req, i)) {
      return;
    }
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
  dfs_getattr(req, ino, fi); /* a directory's kept listing is dropped there (shown_attrs) */
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

/* The reply to making NAME in P (mknod, mkdir, symlink): RES is the call's result, 0 or -1 with
 * errno set. */
static void reply_make(fuse_req_t req, struct inode *p, const char *name, int res) {
  if (res != 0) {
    fuse_reply_err(req, errno);
    return;
  }
  reply_made(req, p, name, -1, NULL);
}

static void dfs_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
    dev_t rdev) {
  struct inode *p = judged_parent(req, parent, name);
  if (p == NULL) {
    return;
  }
  reply_make(req, p, name, bad_name(name) ? (errno = EINVAL, -1) : mknodat(p->fd, name, mode, rdev));
}

static void dfs_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode) {
  struct inode *p = judged_parent(req, parent, name);
  if (p == NULL) {
    return;
  }
  reply_make(req, p, name, bad_name(name) ? (errno = EINVAL, -1) : mkdirat(p->fd, name, mode));
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
  struct inode *p = judged_parent(req, parent, name);
  if (p == NULL) {
    return;
  }
  /* A link whose target is a denied name adds no way to write it (the kernel resolves the link
   * and the write is judged on the target), but it is refused all the same: it has no use other
   * than to reach the denied name. */
  char path[PATH_MAX + NAME_MAX + 2];
  if (placing_tree_denied(p, name, path, sizeof path) || denied(target)
      || leads_into_dependency_tree(path, target)) {
    fuse_reply_err(req, report(path));
    return;
  }
  reply_make(req, p, name, bad_name(name) ? (errno = EINVAL, -1) : symlinkat(target, p->fd, name));
}

/* unlink and rmdir (FLAGS AT_REMOVEDIR): removing a denied name is a write of it. */
static void remove_name(fuse_req_t req, fuse_ino_t parent, const char *name, int flags) {
  struct inode *p = judged_parent(req, parent, name);
  if (p == NULL) {
    return;
  }
  fuse_reply_err(req, unlinkat(p->fd, name, flags) == 0 ? 0 : errno);
}

static void dfs_unlink(fuse_req_t req, fuse_ino_t parent, const char *name) {
  remove_name(req, parent, name, 0);
}

static void dfs_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name) {
  remove_name(req, parent, name, AT_REMOVEDIR);
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

static void dfs_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent,
    const char *newname, unsigned int flags) {
  if (as_caller(req) != 0) {
    return;
  }
  struct inode *p = inode_of(parent), *np = inode_of(newparent);
  if (refused_name(req, p, name)) {
    return;
  }
  char config_path[PATH_MAX + NAME_MAX + 2];
  if (is_config_commit(p, name, np, newname, flags, config_path, sizeof config_path)) {
    judged_config_rename(req, np, config_path);
    return;
  }
  if (refused_name(req, np, newname)) {
    return;
  }
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

static void dfs_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname) {
  if (as_caller(req) != 0) {
    return;
  }
  struct inode *i = inode_of(ino), *np = inode_of(newparent);
  /* A second name for a denied file would be a name that is not denied. */
  if (refused_inode(req, i)) {
    return;
  }
  if (refused_name(req, np, newname)) {
    return;
  }
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
    forget_one(req, inode_of(e.ino), 1);
  }
}

/* ---- files ---- */

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
  if (as_caller(req) != 0) {
    return;
  }
  struct inode *i = inode_of(ino);
  if (writes(fi->flags)) {
    if (refused_inode(req, i)) {
      return;
    }
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
  struct inode *p = judged_parent(req, parent, name);
  if (p == NULL) {
    return;
  }
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
  if (as_caller(req) != 0) {
    return;
  }
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

/* No OPENDIR, no RELEASEDIR: opening a directory judges nothing, so the layer asks the kernel not
 * to send them (FUSE_CAP_NO_OPENDIR_SUPPORT, answered by the first OPENDIR's ENOSYS): a listing
 * costs its READDIRPLUS requests alone, not two round trips more (find, rm -r, tar, git status
 * open every directory they walk). The kernel then keeps each listing until the directory
 * changes, as it did with cache_readdir. A listing is read as the caller (do_readdir), so a
 * directory the caller may not read fails at getdents(2) with EACCES, not at open(2). */
static void dfs_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi) {
  (void) ino;
  if (no_opendir) {
    fuse_reply_err(req, ENOSYS);
    return;
  }
  /* A kernel without the capability (before 5.1): an open that holds nothing. */
  fi->fh = 0;
  fi->keep_cache = 1;
  fi->cache_readdir = 1;
  fuse_reply_open(req, fi);
}

/* A listing the kernel keeps was read with the directory's permissions of then, and with no
 * OPENDIR nothing checks the caller again before it is shown: when the kernel is told of a new
 * mode or owner (a chmod or chown through the layer, or one made from outside, seen when the
 * kernel next asks for the attributes), the kept listing is dropped, and the next listing is read
 * as the caller. Dropping takes no lock the kernel may hold while it waits for this reply. */
void shown_attrs(struct inode *i, fuse_ino_t ino, const struct stat *st) {
  if (!S_ISDIR(st->st_mode)) {
    return;
  }
  mode_t mode = __atomic_exchange_n(&i->shown_mode, st->st_mode, __ATOMIC_RELAXED);
  uid_t uid = __atomic_exchange_n(&i->shown_uid, st->st_uid, __ATOMIC_RELAXED);
  gid_t gid = __atomic_exchange_n(&i->shown_gid, st->st_gid, __ATOMIC_RELAXED);
  if (mode != 0 && (mode != st->st_mode || uid != st->st_uid || gid != st->st_gid)) {
    fuse_lowlevel_notify_inval_inode(the_session, ino, 0, 0);
  }
}

static int dot_or_dotdot(const char *name) {
  return strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
}

/* A directory stream a listing has not finished: the next READDIRPLUS from where it left off goes
 * on in it. A stream opened afresh and sought there would do, on a file system whose positions
 * stay put (ext4's hashes, XFS, btrfs); on one whose positions count the entries (an overlayfs
 * merged directory, tmpfs before Linux 6.6) a name unlinked between two requests of one listing
 * would make the next skip one, as `while (readdir) unlink` does. Kept per directory (one at a
 * time: a second listing of it opens its own), for the caller who opened it, until the listing
 * ends, another replaces it, or the kernel forgets the directory. */
struct listing {
  DIR *dp;
  struct dirent *pending; /* read but not handed out (the kernel's buffer was full) */
  off_t next;             /* the offset the kernel asks for to go on */
  uid_t uid;
  gid_t gid;
};

void close_listing(struct listing *l) {
  if (l != NULL) {
    closedir(l->dp);
    free(l);
  }
}

/* The stream to list directory P from OFF as the caller of REQ: the kept one if it left off
 * there, else one opened afresh (as the caller: the directory's permissions hold). NULL with
 * errno set when the caller may not read it. */
static struct listing *listing_at(fuse_req_t req, struct inode *p, off_t off) {
  const struct fuse_ctx *c = fuse_req_ctx(req);
  struct listing *l = __atomic_exchange_n(&p->listing, NULL, __ATOMIC_ACQ_REL);
  if (l != NULL && off != 0 && l->next == off && l->uid == c->uid && l->gid == c->gid) {
    return l;
  }
  close_listing(l);
  l = calloc(1, sizeof *l);
  int fd = l == NULL ? (errno = ENOMEM, -1)
      : openat(p->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || (l->dp = fdopendir(fd)) == NULL) {
    int err = errno;
    if (fd >= 0) {
      close(fd);
    }
    free(l);
    errno = err;
    return NULL;
  }
  l->uid = c->uid;
  l->gid = c->gid;
  if (off != 0) {
    seekdir(l->dp, off);
  }
  return l;
}

/* One listing request: the entries of directory INO from OFF (the d_off of the last entry handed
 * out before) that fit in SIZE bytes. */
static void do_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, int plus) {
  if (as_caller(req) != 0) {
    return;
  }
  struct inode *parent = inode_of(ino);
  struct listing *l = listing_at(req, parent, off);
  if (l == NULL) {
    fuse_reply_err(req, errno);
    return;
  }
  char *buf = malloc(size);
  if (buf == NULL) {
    close_listing(l);
    fuse_reply_err(req, ENOMEM);
    return;
  }
  size_t used = 0;
  int err = 0, ended = 0;
  for (;;) {
    struct dirent *de = l->pending;
    l->pending = NULL;
    if (de == NULL) {
      errno = 0;
      de = readdir(l->dp);
      if (de == NULL) {
        err = errno;
        ended = 1;
        break;
      }
    }
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
          forget_one(req, inode_of(e.ino), 1); /* looked up again when it is handed out */
        }
        l->pending = de;
        break;
      }
    } else {
      struct stat st;
      memset(&st, 0, sizeof st);
      st.st_ino = de->d_ino;
      st.st_mode = (mode_t) DTTOIF(de->d_type);
      n = fuse_add_direntry(req, buf + used, size - used, de->d_name, &st, next);
      if (n > size - used) {
        l->pending = de;
        break;
      }
    }
    used += n;
    l->next = next;
  }
  if (ended || used == 0) {
    close_listing(l); /* the listing is over (or made no progress: the next starts afresh) */
  } else {
    close_listing(__atomic_exchange_n(&parent->listing, l, __ATOMIC_ACQ_REL));
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
  (void) fi;
  do_readdir(req, ino, size, off, 0);
}

static void dfs_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
    struct fuse_file_info *fi) {
  (void) fi;
  do_readdir(req, ino, size, off, 1);
}

static void dfs_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync,
    struct fuse_file_info *fi) {
  (void) fi;
  if (as_caller(req) != 0) {
    return;
  }
  int fd = openat(inode_of(ino)->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  int res = fd < 0 ? -1 : datasync ? fdatasync(fd) : fsync(fd);
  int err = res == 0 ? 0 : errno;
  if (fd >= 0) {
    close(fd);
  }
  fuse_reply_err(req, err);
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
  /* No OPENDIR or RELEASEDIR: see dfs_opendir. */
  if (conn->capable & FUSE_CAP_NO_OPENDIR_SUPPORT) {
    conn->want |= FUSE_CAP_NO_OPENDIR_SUPPORT;
    no_opendir = 1;
  }
  /* Always readdirplus (not only for the first listing): see do_readdir. */
  conn->want &= ~(unsigned) FUSE_CAP_READDIRPLUS_AUTO;
  /* Not splice_read: the kernel would then hand every request (a lookup, a create) through a
   * pipe, two more system calls each, for a gain only on large writes. */
  conn->want &= ~(unsigned) FUSE_CAP_SPLICE_READ;
  /* The kernel clears set-user-ID bits on write and chown itself (a SETATTR, as the caller). */
  conn->want &= ~(unsigned) FUSE_CAP_HANDLE_KILLPRIV;
  /* FUSE over io_uring where the kernel offers it (uring.c, or libfuse's own). */
  uring_want(conn);
  /* Passthrough when the kernel offers it and the daemon may register backing files (root):
   * reads and writes never come here (passthrough.c). The kernel turns it down when the
   * writeback cache is asked for too. */
  if (passthrough_want(conn)) {
    conn->want &= ~(unsigned) FUSE_CAP_WRITEBACK_CACHE;
    return;
  }
  /* Else the writeback cache: the kernel gathers a file's writes and sends them when it is closed
   * (tar's 10 KiB writes become one), and keeps the pages it wrote for the next read. It cannot
   * let a denied name be written: a write needs a descriptor opened for write, and that open
   * (or the truncation, the create) came here and was judged. See docs/sandbox.md. */
  if (writeback_allowed && (conn->capable & FUSE_CAP_WRITEBACK_CACHE)) {
    conn->want |= FUSE_CAP_WRITEBACK_CACHE;
    writeback = 1;
  }
}

const struct fuse_lowlevel_ops denyfs_ops = {
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
    .fsyncdir = dfs_fsyncdir,
    .statfs = dfs_statfs,
    .create = dfs_create,
    .fallocate = dfs_fallocate,
    .lseek = dfs_lseek,
    .access = dfs_access,
};
