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

/// Starts the program at `path` with `argv` (NULL-terminated) and the caller's environment, as a
/// child of the calling process (posix_spawn): descriptors from 3 up are closed in the child
/// whether or not they are close-on-exec, the signal mask is empty and SIGHUP, SIGINT, SIGTERM,
/// SIGPIPE and SIGCHLD have their default actions (the daemon ignores or handles some of them).
/// Returns 0 with the child's id in `pid`, or an errno value.
int recorderd_spawn(const char *path, char *const argv[], pid_t *pid);

/// A descriptor that becomes readable when the child `pid` ends (pidfd_open(2), close-on-exec),
/// or -1 with errno.
int recorderd_pidfd_open(pid_t pid);

/// Asks for `signal` when the thread that started this process ends (prctl PR_SET_PDEATHSIG),
/// then returns the parent's process id as it is now (1 or a subreaper's when the parent is
/// already gone). Returns -1 with errno when the request fails.
pid_t recorderd_signal_on_parent_death(int signal);

#endif
