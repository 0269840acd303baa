/* Kernel passthrough (denyfs.h): the kernel reads and writes the file underneath itself.
 *
 * Linux 6.9 and later can hand a FUSE file's reads, writes and mmap straight to a file the daemon
 * opened (FUSE_PASSTHROUGH): no request per read or write. Nothing about a name changes: a
 * descriptor the sandbox holds was opened (or created) here, after the judgement, and the kernel
 * still checks it was opened for writing before any write. Where the host's libfuse has it
 * (fuse_passthrough_open, libfuse 3.17 and later), libfuse speaks it; where it lacks it (libfuse
 * 3.14, Debian 12), the daemon speaks that part of the protocol itself (DENYFS_OWN_PASSTHROUGH),
 * through libfuse's custom I/O (kernel_io.c): it reads the kernel's offer in the INIT request,
 * adds its answer to the INIT reply, and adds the backing file's id to the replies to OPEN and
 * CREATE. Registering a backing file needs
 * CAP_SYS_ADMIN, so only a daemon running as root asks for it; others keep the writeback cache
 * (the kernel allows one or the other). */

#include "denyfs.h"

#include <errno.h>
#include <sys/ioctl.h>
#include <unistd.h>

int passthrough_allowed = 1;
int passthrough;
static int backing_registered; /* a backing file was ever registered (under table_lock) */

#ifdef DENYFS_OWN_PASSTHROUGH

struct pt_backing_map {
  int32_t fd;
  uint32_t flags;
  uint64_t padding;
};
#define PT_DEV_IOC_BACKING_OPEN _IOW(229, 1, struct pt_backing_map)
#define PT_DEV_IOC_BACKING_CLOSE _IOW(229, 2, uint32_t)

int passthrough_want(struct fuse_conn_info *conn) {
  (void) conn; /* the offer came in the INIT request (kernel_io.c), the answer goes with the reply */
  passthrough = passthrough_allowed && kernel_offers_passthrough && running_as_root;
  return passthrough;
}

/* FD registered as a backing file: its id, else 0 with *ERR set. */
static int register_backing(fuse_req_t req, int fd, int *err) {
  (void) req;
  struct pt_backing_map map = {fd, 0, 0};
  int id = ioctl(fuse_session_fd(the_session), PT_DEV_IOC_BACKING_OPEN, &map);
  *err = errno;
  return id > 0 ? id : 0;
}

static void unregister_backing(fuse_req_t req, int id) {
  (void) req;
  uint32_t backing = (uint32_t) id;
  ioctl(fuse_session_fd(the_session), PT_DEV_IOC_BACKING_CLOSE, &backing);
}

/* The open reply names the backing file: added by kernel_io.c as libfuse writes the reply. */
static void mark_backing(struct fuse_file_info *fi, int id) {
  (void) fi;
  thread_backing_id = id;
}

#else

int passthrough_want(struct fuse_conn_info *conn) {
  passthrough = passthrough_allowed && running_as_root && (conn->capable & FUSE_CAP_PASSTHROUGH);
  if (passthrough) {
    conn->want |= FUSE_CAP_PASSTHROUGH;
    conn->max_backing_stack_depth = PT_MAX_STACK_DEPTH;
  }
  return passthrough;
}

static int register_backing(fuse_req_t req, int fd, int *err) {
  errno = 0;
  int id = fuse_passthrough_open(req, fd);
  *err = errno != 0 ? errno : EIO;
  return id > 0 ? id : 0;
}

static void unregister_backing(fuse_req_t req, int id) {
  fuse_passthrough_close(req, id);
}

static void mark_backing(struct fuse_file_info *fi, int id) {
  fi->backing_id = id;
}

#endif

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
static int backing_for(fuse_req_t req, struct inode *i, int fd) {
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
  int err = 0;
  int id = register_backing(req, fd, &err);
  if (id > 0) {
    i->backing_id = id;
    backing_registered = 1;
  } else if (!backing_registered
      && (err == EPERM || err == EOPNOTSUPP || err == ENOTTY || err == EINVAL)) {
    /* The kernel did not take up the offer (or refuses this daemon): as no open has a backing
     * file yet, every open from here on is served the plain way, consistently. */
    passthrough = 0;
  } else {
    id = -err;
  }
  pthread_mutex_unlock(&table_lock);
  return id;
}

/* The inode is forgotten: no open of it is left. */
void drop_backing(fuse_req_t req, struct inode *i) {
  if (i->backing_id > 0) {
    unregister_backing(req, i->backing_id);
  }
}

void reply_opened(fuse_req_t req, struct inode *i, int fd, struct fuse_file_info *fi,
    const struct fuse_entry_param *entry) {
  int id = 0;
  if (passthrough) { /* read without the lock: a stale 1 finds out in backing_for */
    id = backing_for(req, i, fd);
    if (id < 0) {
      close(fd);
      if (entry != NULL) {
        forget_one(req, inode_of(entry->ino), 1);
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
  mark_backing(fi, id);
  int res = entry != NULL ? fuse_reply_create(req, entry, fi) : fuse_reply_open(req, fi);
  mark_backing(fi, 0);
  if (res == -ENOENT) { /* interrupted: the kernel forgot it */
    close(fd);
    if (entry != NULL) {
      forget_one(req, inode_of(entry->ino), 1);
    }
  }
}

