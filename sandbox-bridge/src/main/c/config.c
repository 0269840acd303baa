/* Repository configs (denyfs.h): an upstream stored on the launcher's judgement.
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

#include "denyfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define JUDGED_MAX_BYTES (256 * 1024) /* UpstreamConfigEdit.MAX_BYTES: larger is refused */
#define JUDGE_SECONDS 10

static pthread_mutex_t judge_lock = PTHREAD_MUTEX_INITIALIZER; /* one question at a time */
static pthread_mutex_t answer_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t answer_came = PTHREAD_COND_INITIALIZER;
static unsigned long asked;    /* the number of the question asked last */
static unsigned long answered; /* the number of the last answer to it */
static int answer_yes;

/* Whether renaming NAME in P onto NEWNAME in NP is git committing a judged config: config.lock
 * onto config in the same directory, a plain rename. PATH_OUT gets the config's path. */
int is_config_commit(struct inode *p, const char *name, struct inode *np,
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
void take_answer(const char *line) {
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
  deny_inode_of(lock, config_path);
  pthread_t t;
  pthread_attr_t detached;
  if (pthread_attr_init(&detached) == 0) {
    pthread_attr_setdetachstate(&detached, PTHREAD_CREATE_DETACHED);
    pthread_create(&t, &detached, forget_config_entry, (void *) (uintptr_t) ino_of(dir));
    pthread_attr_destroy(&detached);
  }
}

void judged_config_rename(fuse_req_t req, struct inode *dir, const char *config_path) {
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

