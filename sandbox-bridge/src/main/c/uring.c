/* FUSE over io_uring (denyfs.h), where the host's libfuse lacks it (DENYFS_OWN_URING).
 *
 * Each request costs the process that made it a wake-up of a daemon thread and the daemon's
 * read and write of /dev/fuse; on a virtual machine the wake-up of a thread on another core is
 * most of the cost (docs/sandbox.md, "Cost"). Since Linux 6.14 the kernel can hand requests over
 * io_uring instead, when the host allows it (the fuse module's enable_uring parameter): one queue
 * per core, a request is queued on the core of the process that made it, and one daemon thread
 * pinned to that core serves it; the reply and the wait for the next request are one system call.
 * libfuse 3.14 predates it (libfuse 3.18 has it, and build.sh then leaves this file out), so the
 * daemon does this part itself, through libfuse's custom I/O (kernel_io.c): a queue's thread lays each
 * request out as /dev/fuse would have delivered it and hands it to libfuse, and the writev hook
 * puts libfuse's reply into the ring entry instead of writing it to /dev/fuse. Interrupts and
 * forgets still come through /dev/fuse, served by libfuse's own loop as before.
 *
 * The kernel blocks every request from the INIT reply that asks for io_uring until every queue
 * has an entry; so the rings, buffers and threads are all made before that reply (and it does not
 * ask if any cannot be), and the threads register their entries right after it. A registration
 * the kernel refuses turns io_uring off for the connection: requests go through /dev/fuse. */

#include "denyfs.h"

#include <errno.h>
#include <liburing.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

int uring_allowed = 1;
int uring;
static struct ur_queue *queues;
static int n_queues;
static int ur_fd;
static pthread_mutex_t ur_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ur_changed = PTHREAD_COND_INITIALIZER;
static int ur_ready_count, ur_failed, ur_go; /* ur_go: 1 register, -1 give up */
int uring_said;
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
    count_request(thread_opcode);
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
ssize_t ur_reply(struct iovec *iov, int count) {
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
      say_transport_uring(); /* the kernel took the offer */
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
void ur_start(void) {
  pthread_mutex_lock(&ur_lock);
  ur_go = 1;
  pthread_cond_broadcast(&ur_changed);
  pthread_mutex_unlock(&ur_lock);
}

int uring_want(struct fuse_conn_info *conn) {
  if (!uring_allowed || !kernel_offers_uring) {
    return 0;
  }
  /* Replies go into ring entries through the writev hook; a spliced reply would bypass it. */
  conn->want &= ~(unsigned) (FUSE_CAP_SPLICE_WRITE | FUSE_CAP_SPLICE_MOVE);
  uring = ur_prepare(fuse_session_fd(the_session));
  return uring;
}

int uring_serving(void) {
  return uring;
}

void say_transport_uring(void) {
  if (!__atomic_exchange_n(&uring_said, 1, __ATOMIC_RELAXED)) {
    pthread_mutex_lock(&out_lock);
    fputs("transport io_uring\n", stdout);
    fflush(stdout);
    pthread_mutex_unlock(&out_lock);
  }
}
