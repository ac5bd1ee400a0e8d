// System calls recorderd needs that Swift's Glibc module does not import.
#ifndef RECORDERD_SYSTEM_SUPPORT_H
#define RECORDERD_SYSTEM_SUPPORT_H

#include <stddef.h>
#include <sys/types.h>

/// getrandom(2) with no flags: fills `buffer` from the kernel's random pool without a file
/// descriptor. Returns the bytes filled, or -1 with errno.
ssize_t recorderd_getrandom(void *buffer, size_t length);

/// Names the calling thread (prctl PR_SET_NAME): Linux keeps the first 15 bytes. Returns 0, or
/// -1 with errno.
int recorderd_set_thread_name(const char *name);

/// pipe2(2) with O_CLOEXEC | O_NONBLOCK: both ends non-blocking and closed in any program a child
/// executes. Returns 0, or -1 with errno.
int recorderd_pipe_cloexec_nonblocking(int fds[2]);

#endif
