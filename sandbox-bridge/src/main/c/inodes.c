/* The inode table (denyfs.h): an O_PATH descriptor for every inode the kernel knows, the paths
 * those descriptors have now, and the judgement of a name or an inode by the deny rules. */
#include "denyfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct inode root;
pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct inode **buckets;
static size_t n_buckets = 1 << 12;
static size_t n_inodes;
static char root_path[PATH_MAX]; /* the source as the kernel spells it (/proc/self/fd) */
static size_t root_path_len;

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

struct inode *inode_of(fuse_ino_t ino) {
  return ino == FUSE_ROOT_ID ? &root : (struct inode *) (uintptr_t) ino;
}

fuse_ino_t ino_of(struct inode *i) {
  return i == &root ? FUSE_ROOT_ID : (fuse_ino_t) (uintptr_t) i;
}

void forget_one(fuse_req_t req, struct inode *i, uint64_t n) {
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
    drop_backing(req, i);
    close_listing(i->listing);
    close(i->fd);
    free(i->denied_as);
    free(i);
    return;
  }
  i->nlookup -= n;
  pthread_mutex_unlock(&table_lock);
}

/* Marks every inode the table holds for FILE as denied, reported as PATH. */
void deny_inode_of(const struct stat *file, const char *path) {
  pthread_mutex_lock(&table_lock);
  for (struct inode *i = buckets[bucket_of(file->st_dev, file->st_ino)]; i != NULL; i = i->next) {
    if (i->dev == file->st_dev && i->ino == file->st_ino && i->denied_as == NULL) {
      i->denied_as = strdup(path);
    }
  }
  pthread_mutex_unlock(&table_lock);
}

/* ---- paths, only for the refusal lines and protected-path patterns ---- */

/* /proc/self/fd/N of an O_PATH descriptor: opening or changing it reaches that very file (the
 * magic link is not a path walked by name; no symlink is followed from it). */
void proc_path(int fd, char *buf, size_t size) {
  snprintf(buf, size, "/proc/self/fd/%d", fd);
}

/* The path of a descriptor relative to the source ("/" for the source itself), as the kernel
 * knows it now (it follows renames). -1 when it has none (deleted, or moved out of the tree from
 * outside the layer). */
static int rel_path_of_fd(int fd, char *out, size_t size) {
  char proc[64], full[PATH_MAX];
  proc_path(fd, proc, sizeof proc);
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

int inodes_open(const char *source) {
  root.fd = open(source, O_PATH | O_DIRECTORY | O_CLOEXEC);
  struct stat st;
  if (root.fd < 0 || fstat(root.fd, &st) != 0) {
    fprintf(stderr, "pushgate-denyfs: cannot open %s: %s\n", source, strerror(errno));
    return -1;
  }
  root.type = S_IFDIR;
  root.dev = st.st_dev;
  root.ino = st.st_ino;
  root.nlookup = 2;
  if (rel_path_of_fd(root.fd, root_path, sizeof root_path) != 0) { /* root_path_len is 0 here */
    fprintf(stderr, "pushgate-denyfs: cannot tell the path of %s\n", source);
    return -1;
  }
  root_path_len = strlen(root_path);
  if (root_path[0] != '/') {
    fprintf(stderr, "pushgate-denyfs: %s has no absolute path\n", source);
    return -1;
  }
  buckets = calloc(n_buckets, sizeof *buckets);
  if (buckets == NULL) {
    fprintf(stderr, "pushgate-denyfs: out of memory\n");
    return -1;
  }
  return 0;
}

/* PARENT/NAME relative to the source; -1 when the parent has no path. */
int rel_path_of_name(struct inode *parent, const char *name, char *out, size_t size) {
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
int name_denied(struct inode *parent, const char *name, char *path_out, size_t size) {
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

int refused_name(fuse_req_t req, struct inode *parent, const char *name) {
  char path[REL_PATH_MAX];
  if (!name_denied(parent, name, path, sizeof path)) {
    return 0;
  }
  fuse_reply_err(req, report(path));
  return 1;
}

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

int refused_inode(fuse_req_t req, struct inode *i) {
  char path[REL_PATH_MAX];
  if (!inode_denied(i, path, sizeof path)) {
    return 0;
  }
  fuse_reply_err(req, report(path));
  return 1;
}

/* ---- lookups ---- */

/* Registers FD (O_PATH, owned by the table from here on) as NAME in PARENT and fills E. */
int remember(struct inode *parent, const char *name, int fd, struct fuse_entry_param *e) {
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
  shown_attrs(i, e->ino, &e->attr);
  e->attr_timeout = CACHE_SECONDS;
  e->entry_timeout = CACHE_SECONDS;
  return 0;
}

int bad_name(const char *name) {
  return strchr(name, '/') != NULL || strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
}

int do_lookup(struct inode *parent, const char *name, struct fuse_entry_param *e) {
  if (bad_name(name)) {
    return EINVAL; /* the kernel sends one component, never . or .. (no export support) */
  }
  int fd = openat(parent->fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    return errno;
  }
  return remember(parent, name, fd, e);
}
