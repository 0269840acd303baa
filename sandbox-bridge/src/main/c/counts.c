/* The requests the kernel sent, by kind (denyfs.h): --count-requests on counts them, and the
 * layer prints one line of counts when it ends. For measuring where the round trips go (each
 * request is one); the launcher never asks for it. Counted where the daemon itself reads a
 * request (its custom I/O and its own io_uring); a build where libfuse serves both says so. */
#include "denyfs.h"

#include <stdio.h>

int count_requests;
static uint64_t counts[64];

static const char *const names[64] = {
    [1] = "LOOKUP", [2] = "FORGET", [3] = "GETATTR", [4] = "SETATTR", [5] = "READLINK",
    [6] = "SYMLINK", [8] = "MKNOD", [9] = "MKDIR", [10] = "UNLINK", [11] = "RMDIR",
    [12] = "RENAME", [13] = "LINK", [14] = "OPEN", [15] = "READ", [16] = "WRITE",
    [17] = "STATFS", [18] = "RELEASE", [20] = "FSYNC", [21] = "SETXATTR", [22] = "GETXATTR",
    [23] = "LISTXATTR", [24] = "REMOVEXATTR", [25] = "FLUSH", [26] = "INIT", [27] = "OPENDIR",
    [28] = "READDIR", [29] = "RELEASEDIR", [30] = "FSYNCDIR", [31] = "GETLK", [32] = "SETLK",
    [33] = "SETLKW", [34] = "ACCESS", [35] = "CREATE", [36] = "INTERRUPT", [37] = "BMAP",
    [38] = "DESTROY", [39] = "IOCTL", [40] = "POLL", [42] = "BATCH_FORGET", [43] = "FALLOCATE",
    [44] = "READDIRPLUS", [45] = "RENAME2", [46] = "LSEEK", [47] = "COPY_FILE_RANGE",
    [50] = "SYNCFS", [51] = "TMPFILE", [52] = "STATX"};

void count_request(uint32_t opcode) {
  if (count_requests) {
    __atomic_add_fetch(&counts[opcode < 64 ? opcode : 0], 1, __ATOMIC_RELAXED);
  }
}

void print_request_counts(void) {
  if (!count_requests) {
    return;
  }
  pthread_mutex_lock(&out_lock);
#ifdef DENYFS_CUSTOM_IO
  fputs("requests", stdout);
  for (int op = 0; op < 64; op++) {
    uint64_t n = __atomic_load_n(&counts[op], __ATOMIC_RELAXED);
    if (n > 0) {
      printf(" %s=%llu", names[op] != NULL ? names[op] : "OTHER", (unsigned long long) n);
    }
  }
  fputs("\n", stdout);
#else
  (void) names;
  fputs("requests not counted (libfuse reads them itself in this build)\n", stdout);
#endif
  fflush(stdout);
  pthread_mutex_unlock(&out_lock);
}
