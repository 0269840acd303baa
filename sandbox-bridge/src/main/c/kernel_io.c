/* The parts of the kernel's FUSE protocol the host's libfuse does not speak (denyfs.h), spoken
 * through libfuse's custom I/O: compiled only when passthrough.c or uring.c needs it (build.sh).
 * The read hook notes which request the thread serves and what the kernel offers in its INIT
 * request; the write hook adds the daemon's answer to the INIT reply, the backing file's id to an
 * OPEN or CREATE reply served by passthrough, and puts a reply to a request that came over
 * io_uring into its ring entry instead of /dev/fuse. */
#include "denyfs.h"

#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define PT_INIT_EXT (1u << 30)
#define PT_PASSTHROUGH_FLAGS2 (1u << 5)  /* FUSE_PASSTHROUGH: bit 37 of the INIT flags */
#define UR_OVER_IO_URING_FLAGS2 (1u << 9) /* FUSE_OVER_IO_URING: bit 41 of the INIT flags */
#define PT_FOPEN_PASSTHROUGH (1u << 7)
#define PT_ENTRY_OUT 128                 /* sizeof(struct fuse_entry_out) */

int kernel_offers_passthrough;
int kernel_offers_uring;
__thread uint32_t thread_opcode;
__thread uint64_t thread_unique;
__thread int thread_backing_id;

uint32_t u32_at(const void *p, size_t off) {
  uint32_t v;
  memcpy(&v, (const char *) p + off, sizeof v);
  return v;
}

void put_u32(void *p, size_t off, uint32_t v) {
  memcpy((char *) p + off, &v, sizeof v);
}

#ifdef DENYFS_OWN_URING
/* Once requests come over io_uring, /dev/fuse brings only forgets (and interrupts). The kernel
 * hands over all the forgets queued at a read in one message: a short pause after each lets them
 * gather, one wake-up and one read for many instead of one each. */
static pthread_mutex_t forgets_lock = PTHREAD_MUTEX_INITIALIZER;
#define FORGET_PAUSE_NS (2 * 1000 * 1000)

static ssize_t read_request(int fd, void *buf, size_t len) {
  if (!__atomic_load_n(&uring_said, __ATOMIC_RELAXED)) {
    return read(fd, buf, len);
  }
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
#else
static ssize_t read_request(int fd, void *buf, size_t len) {
  return read(fd, buf, len);
}
#endif

static ssize_t io_read(int fd, void *buf, size_t len, void *userdata) {
  (void) userdata;
  ssize_t n = read_request(fd, buf, len);
  if (n >= PT_IN_HEADER) {
    thread_opcode = u32_at(buf, 4);
    count_request(thread_opcode);
    memcpy(&thread_unique, (char *) buf + 8, sizeof thread_unique);
    /* fuse_init_in: major, minor, max_readahead, flags, flags2 */
    if (thread_opcode == PT_FUSE_INIT && n >= PT_IN_HEADER + 20
        && (u32_at(buf, PT_IN_HEADER + 12) & PT_INIT_EXT)) {
      uint32_t flags2 = u32_at(buf, PT_IN_HEADER + 16);
      kernel_offers_passthrough = (flags2 & PT_PASSTHROUGH_FLAGS2) != 0;
      kernel_offers_uring = (flags2 & UR_OVER_IO_URING_FLAGS2) != 0;
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

#ifdef DENYFS_OWN_PASSTHROUGH
static int own_passthrough(void) {
  return passthrough;
}
#else
static int own_passthrough(void) {
  return 0; /* libfuse answers the offer and fills in the backing ids itself */
}
#endif

#ifdef DENYFS_OWN_URING
static int own_uring(void) {
  return uring;
}
#else
static int own_uring(void) {
  return 0;
}
#endif

static ssize_t io_writev(int fd, struct iovec *iov, int count, void *userdata) {
  (void) userdata;
  size_t len;
  char *arg;
  if ((own_passthrough() || own_uring()) && thread_opcode == PT_FUSE_INIT
      && (arg = reply_arg(iov, count, &len)) != NULL && len >= 40) {
    /* fuse_init_out: flags at 12, flags2 at 32, max_stack_depth at 36 */
    put_u32(arg, 12, u32_at(arg, 12) | PT_INIT_EXT);
    if (own_passthrough()) {
      put_u32(arg, 32, u32_at(arg, 32) | PT_PASSTHROUGH_FLAGS2);
      put_u32(arg, 36, PT_MAX_STACK_DEPTH);
    }
#ifdef DENYFS_OWN_URING
    if (own_uring()) {
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
#ifdef DENYFS_OWN_URING
  ssize_t taken = ur_reply(iov, count);
  if (taken != -1) {
    return taken >= 0 ? taken : -1;
  }
#endif
  return writev(fd, iov, count);
}

int kernel_io_install(void) {
  static const struct fuse_custom_io io = {.writev = io_writev, .read = io_read};
  return fuse_session_custom_io(the_session, &io, fuse_session_fd(the_session));
}
