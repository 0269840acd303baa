/* Options, mounting, and the end of the layer (denyfs.h). */
#include "denyfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

struct fuse_session *the_session;

#ifndef DENYFS_OWN_URING
/* FUSE over io_uring by libfuse (DENYFS_LIBFUSE_URING: "-o io_uring", FUSE_CAP_OVER_IO_URING,
 * which libfuse asks for when offered), or not at all. */
int uring_allowed = 1;

int uring_want(struct fuse_conn_info *conn) {
#ifdef DENYFS_LIBFUSE_URING
  if (uring_allowed && (conn->capable & FUSE_CAP_OVER_IO_URING)) {
    conn->want |= FUSE_CAP_OVER_IO_URING;
    return 1;
  }
  conn->want &= ~(unsigned) FUSE_CAP_OVER_IO_URING;
#else
  (void) conn;
#endif
  return 0;
}

int uring_serving(void) {
  return 0; /* libfuse ends its own ring threads in fuse_session_destroy */
}

void say_transport_uring(void) {
#ifdef DENYFS_LIBFUSE_URING
  static int said;
  if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED)) {
    pthread_mutex_lock(&out_lock);
    fputs("transport io_uring\n", stdout);
    fflush(stdout);
    pthread_mutex_unlock(&out_lock);
  }
#endif
}
#endif

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
  /* Meanwhile it carries the launcher's answers and syncs, one a line (take_answer, take_sync). */
  while ((r = read(STDIN_FILENO, b, sizeof b)) > 0 || (r < 0 && errno == EINTR)) {
    for (ssize_t k = 0; k < r; k++) {
      if (b[k] == '\n') {
        line[n] = 0;
        if (!too_long && !take_sync(line)) {
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
  print_request_counts();
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

/* The switches for measuring: option A is NAME, given ON or "off" as V; sets *FLAG and says 1,
 * else 0. */
static int take_switch(const char *a, const char *v, const char *name, const char *on, int *flag) {
  if (strcmp(a, name) != 0 || (strcmp(v, on) != 0 && strcmp(v, "off") != 0)) {
    return 0;
  }
  *flag = strcmp(v, on) == 0;
  return 1;
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
  if (argc == 2 && strcmp(argv[1], "--version") == 0) {
    printf("pushgate-denyfs: %s\n", DENYFS_BUILD);
    return 0;
  }
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
    } else if (!take_switch(a, v, "--uring", "auto", &uring_allowed)
        && !take_switch(a, v, "--passthrough", "auto", &passthrough_allowed)
        && !take_switch(a, v, "--writeback", "auto", &writeback_allowed)
        && !take_switch(a, v, "--count-requests", "on", &count_requests)) {
      usage("unknown option or too many patterns");
    }
  }
  if (source == NULL || mountpoint == NULL) {
    usage("--source and --mountpoint are required");
  }
  running_as_root = geteuid() == 0;
  prepare_patterns();
  raise_fd_limit();
  if (inodes_open(source) != 0) {
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
#ifdef DENYFS_LIBFUSE_URING
  if (uring_allowed) {
    fargv[fargc++] = "-o";
    fargv[fargc++] = "io_uring";
  }
#endif
  struct fuse_args args = FUSE_ARGS_INIT(fargc, fargv);
  the_session = fuse_session_new(&args, &denyfs_ops, sizeof denyfs_ops, NULL);
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
#ifdef DENYFS_CUSTOM_IO
  if (kernel_io_install() != 0) {
    fprintf(stderr, "pushgate-denyfs: cannot set up the connection's I/O\n");
    fuse_session_unmount(the_session);
    return 1;
  }
#endif
  pthread_t watcher;
  if (pthread_create(&watcher, NULL, watch_stdin, NULL) != 0) {
    fuse_session_unmount(the_session);
    return 1;
  }
  /* For whoever reads the daemon's errors: which libfuse it was built on and which parts of the
   * protocol it speaks itself. Standard output stays "ready" first (the launcher reads it). */
  fprintf(stderr, "pushgate-denyfs: %s\n", DENYFS_BUILD);
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
  print_request_counts();
  if (uring_serving()) {
    _exit(res == 0 ? 0 : 1); /* a queue's thread may still be in the session */
  }
  fuse_session_destroy(the_session);
  return res == 0 ? 0 : 1;
}
