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
 * The rooms, each with its own part of this header:
 *   deny.c         the deny rules, on paths relative to the mount; the refusal lines
 *   inodes.c       the inode table, the paths of its descriptors, the judgement of an inode's names
 *   ops.c          the operations: whose ids, lookups, attributes, names, files, directories
 *   config.c       a repository's .git/config, written only on the launcher's judgement
 *   passthrough.c  kernel passthrough: the kernel reads and writes the file underneath itself
 *   kernel_io.c    the protocol the host's libfuse lacks, spoken through its custom I/O
 *   uring.c        FUSE over io_uring, where the host's libfuse lacks it
 *   main.c         options, mounting, and the end of the layer
 * build.sh compiles kernel_io.c and uring.c, and the daemon's own half of passthrough.c, only when
 * the installed libfuse lacks what they provide (DENYFS_OWN_PASSTHROUGH, DENYFS_OWN_URING; with
 * DENYFS_LIBFUSE_URING libfuse's own io_uring serves instead) and says which it chose, as the
 * daemon does at start-up and with --version (DENYFS_BUILD).
 *
 * Usage: pushgate-denyfs --source DIR --mountpoint DIR [--deny GLOB]... [--deny-path PATTERN]...
 *            [--host-path SPELLING]... [--dependency-dir NAME]... [--judged-config /REL/PATH]...
 *            [--passthrough auto|off] [--uring auto|off]
 *        pushgate-denyfs --version
 * It prints "ready" once mounted ("transport io_uring" when the first request comes that way), and
 * unmounts and exits when its standard input ends (the launcher closed it, or died). Until then,
 * a --judged-config (a repository's .git/config) is written only as the launcher answers on
 * standard input ("judge-config" on standard output; see config.c). The mount uses auto_unmount:
 * fusermount3 unmounts it when this process dies, even by SIGKILL.
 */
#ifndef PUSHGATE_DENYFS_H
#define PUSHGATE_DENYFS_H

#define FUSE_USE_VERSION 312
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fuse_lowlevel.h>

#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#ifndef DENYFS_BUILD
#define DENYFS_BUILD "libfuse (unknown), passthrough and io_uring chosen by hand"
#endif

#define MAX_PATTERNS 256
/* How long the kernel may keep a name's lookup (found or not found) and a file's attributes
 * without asking again. Every write of a name is an operation (create, mknod, mkdir, rename,
 * link, symlink, unlink, open for write, setattr) that reaches the daemon whatever is cached, so a
 * cache cannot let a write bypass a deny; what it delays is seeing a change made to the source
 * directory from outside the layer (the host, not the sandbox), by at most this long. */
#define CACHE_SECONDS 60.0
/* Room for a path relative to the mount and one more name. */
#define REL_PATH_MAX (PATH_MAX + NAME_MAX + 2)

/* ---- the rules (main.c fills them from the options; deny.c judges by them) ---- */

extern const char *deny_globs[MAX_PATTERNS];
extern int n_deny_globs;
extern const char *deny_paths[MAX_PATTERNS];
extern int n_deny_paths;
extern const char *host_paths[MAX_PATTERNS];
extern int n_host_paths;
extern const char *dependency_dirs[MAX_PATTERNS];
extern int n_dependency_dirs;
/* Repository configs (paths relative to the mount, "/.git/config") no write may reach but the one
 * the launcher approves: git's rename of config.lock onto them (config.c). */
extern const char *judged_configs[MAX_PATTERNS];
extern int n_judged_configs;

/* ---- deny.c: the deny rules, on paths relative to the mount, starting with / ---- */

/* Works the protected-path patterns out against the mount's spellings, once at start. */
void prepare_patterns(void);
int name_matches_glob(const char *name);
int path_matches_pattern(const char *path);
int protected_below(const char *path);
int in_dependency_tree(const char *path, int with_last);
int denied(const char *path);
int is_judged_config(const char *path);
size_t put_escaped(char *line, size_t n, size_t size, const char *path);
/* Writes the refusal line for PATH; returns EACCES. */
int report(const char *path);
/* Answers the launcher's "sync N" with "synced N": every refusal reported before is ahead of it. */
int take_sync(const char *line);
/* Standard output carries one line at a time: refusals, questions, the transport line. */
extern pthread_mutex_t out_lock;

/* ---- inodes.c: the inode table ---- */

struct inode {
  int fd;               /* O_PATH | O_NOFOLLOW, opened by one name beneath the source */
  mode_t type;          /* S_IFMT bits: a file's type never changes */
  dev_t dev;
  ino_t ino;
  uint64_t nlookup;     /* the kernel's references: freed when they are all forgotten */
  char *denied_as;      /* when looked up by a denied name: that path (for the report), else NULL */
  int backing_id;       /* passthrough: the kernel's id of the file underneath, else 0 */
  struct listing *listing; /* a directory: where the last listing of it left off (ops.c) */
  mode_t shown_mode;    /* a directory: the mode and owner last told the kernel (shown_attrs) */
  uid_t shown_uid;
  gid_t shown_gid;
  struct inode *next;   /* hash chain */
};

/* ops.c: drops a directory's kept listing stream (the inode is being forgotten). */
void close_listing(struct listing *l);
/* ops.c: notes the attributes about to be told the kernel for I; a directory whose mode or owner
 * changed since it was last told has the listing the kernel keeps of it dropped. */
void shown_attrs(struct inode *i, fuse_ino_t ino, const struct stat *st);

extern pthread_mutex_t table_lock;

/* Opens the source as the root inode and makes the table; 0, or -1 after saying why. */
int inodes_open(const char *source);
struct inode *inode_of(fuse_ino_t ino);
fuse_ino_t ino_of(struct inode *i);
void forget_one(fuse_req_t req, struct inode *i, uint64_t n);
/* Marks every inode the table holds for FILE as denied, reported as PATH. */
void deny_inode_of(const struct stat *file, const char *path);
int bad_name(const char *name);
/* Registers FD (O_PATH, owned by the table from here on) as NAME in PARENT and fills E. */
int remember(struct inode *parent, const char *name, int fd, struct fuse_entry_param *e);
int do_lookup(struct inode *parent, const char *name, struct fuse_entry_param *e);
int rel_path_of_name(struct inode *parent, const char *name, char *out, size_t size);
/* /proc/self/fd/N of a descriptor, in BUF. */
void proc_path(int fd, char *buf, size_t size);
int name_denied(struct inode *parent, const char *name, char *path_out, size_t size);
/* Whether NAME in PARENT may not be written: then the refusal is reported and replied to REQ. */
int refused_name(fuse_req_t req, struct inode *parent, const char *name);
/* Whether inode I may not be written: then the refusal is reported and replied to REQ. */
int refused_inode(fuse_req_t req, struct inode *i);

/* ---- ops.c: the operations ---- */

extern const struct fuse_lowlevel_ops denyfs_ops;
extern int running_as_root;
extern struct fuse_session *the_session;

/* ---- config.c: a repository's .git/config ---- */

int is_config_commit(struct inode *p, const char *name, struct inode *np, const char *newname,
    unsigned int flags, char *path_out, size_t size);
void judged_config_rename(fuse_req_t req, struct inode *dir, const char *config_path);
/* One line the launcher wrote on standard input: an answer to a question. */
void take_answer(const char *line);

/* ---- passthrough.c ---- */

extern int passthrough_allowed; /* --passthrough off clears it (for measuring) */
extern int writeback_allowed; /* --writeback off clears it (for measuring) */

/* counts.c: --count-requests on, for measuring */
extern int count_requests;
void count_request(uint32_t opcode);
void print_request_counts(void);
extern int passthrough;         /* asked for: opens hand the kernel the file underneath */
/* In the INIT callback: asks for passthrough when offered; 1 when asked. */
int passthrough_want(struct fuse_conn_info *conn);
/* Replies to an OPEN or CREATE of I whose descriptor is FD: through passthrough when it is on.
 * ENTRY is the new name for a CREATE, else NULL. On failure the descriptor is closed. */
void reply_opened(fuse_req_t req, struct inode *i, int fd, struct fuse_file_info *fi,
    const struct fuse_entry_param *entry);
/* The inode is forgotten: no open of it is left. */
void drop_backing(fuse_req_t req, struct inode *i);

/* The largest stack depth of the file system underneath plus one: overlayfs (1) beneath allowed. */
#define PT_MAX_STACK_DEPTH 2

/* ---- kernel_io.c: what the host's libfuse does not speak, through its custom I/O ---- */

#if defined(DENYFS_OWN_PASSTHROUGH) || defined(DENYFS_OWN_URING)
#define DENYFS_CUSTOM_IO 1
/* Installs the hooks on the session; 0, or -1. */
int kernel_io_install(void);
extern int kernel_offers_passthrough; /* read from the kernel's INIT request */
extern int kernel_offers_uring;
/* Set while the thread replies to an OPEN or CREATE served by passthrough. */
extern __thread int thread_backing_id;
/* libfuse serves a request on the thread that read it: these describe that request. */
extern __thread uint32_t thread_opcode;
extern __thread uint64_t thread_unique;
uint32_t u32_at(const void *p, size_t off);
void put_u32(void *p, size_t off, uint32_t v);
#define PT_IN_HEADER 40        /* sizeof(struct fuse_in_header) */
#define PT_FUSE_INIT 26
#define PT_FUSE_FORGET 2
#define PT_FUSE_BATCH_FORGET 42
#define PT_FUSE_CREATE 35
#endif

/* ---- uring.c / libfuse: FUSE over io_uring ---- */

extern int uring_allowed; /* --uring off clears it (for measuring) */
/* In the INIT callback: asks for io_uring when offered; 1 when asked. */
int uring_want(struct fuse_conn_info *conn);
/* Whether requests may be served by threads main.c does not know of (it then exits at once). */
int uring_serving(void);
#ifdef DENYFS_OWN_URING
extern int uring;           /* asked for in the INIT reply */
extern int uring_said;      /* the first request came by io_uring */
ssize_t ur_reply(struct iovec *iov, int count);
void ur_start(void);
#endif
/* Says "transport io_uring" once, for the launcher's log and the tests. */
void say_transport_uring(void);

#endif
