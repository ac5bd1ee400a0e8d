// recorderd's runtime in C, the one C shim under RecorderRuntime: the system calls Swift's Glibc
// module does not import, and SHA-256.
#ifndef RECORDERD_RUNTIME_H
#define RECORDERD_RUNTIME_H

#include <stdint.h>

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
/// When `report` is not -1, that descriptor is the child's 3 (a pipe's end the child reports on).
/// Returns 0 with the child's id in `pid`, or an errno value.
int recorderd_spawn(const char *path, char *const argv[], int report, pid_t *pid);

/// As `recorderd_spawn`, with the environment `envp` (NULL: the caller's), the descriptors `input`,
/// `output` and `errors` as the child's 0, 1 and 2 (-1: the caller's own), and, when
/// `new_process_group` is nonzero, a process group of its own led by the child.
int recorderd_spawn_child(const char *path, char *const argv[], char *const envp[], int input, int output, int errors,
                          int new_process_group, pid_t *pid);

/// A descriptor that becomes readable when the child `pid` ends (pidfd_open(2), close-on-exec),
/// or -1 with errno.
int recorderd_pidfd_open(pid_t pid);

/// Asks for `signal` when the thread that started this process ends (prctl PR_SET_PDEATHSIG),
/// then returns the parent's process id as it is now (1 or a subreaper's when the parent is
/// already gone). Returns -1 with errno when the request fails.
pid_t recorderd_signal_on_parent_death(int signal);

// SHA-256 (FIPS 180-4), streaming, for the file results' hashes: portable C, and the x86 SHA
// extensions where the CPU has them (chosen at run time). Written for recorderd so the recording
// process does not load libcrypto for one hash (1.5 MiB of RSS only to be mapped, 3.4 MiB once
// its EVP interface has initialised its providers).

/// A hash in progress; a plain value (copy it to finish a copy while the original goes on).
typedef struct {
    uint32_t state[8];
    uint64_t length;      // bytes hashed so far
    uint8_t block[64];    // the bytes of an incomplete block
    uint32_t used;        // how many of `block` are filled
    uint32_t accelerated; // 1: the SHA extensions compress the blocks
} recorderd_sha256;

/// Starts a hash; `allow_extensions` 0 forces the portable code (for tests comparing the two).
void recorderd_sha256_init(recorderd_sha256 *context, int allow_extensions);

/// Adds `count` bytes.
void recorderd_sha256_update(recorderd_sha256 *context, const void *bytes, size_t count);

/// Writes the 32-byte digest of the bytes so far; `context` is finished (copy it first to go on).
void recorderd_sha256_final(recorderd_sha256 *context, uint8_t digest[32]);

/// 1 when this CPU has the SHA extensions the fast path uses.
int recorderd_sha256_has_extensions(void);

/// The kernel's word on the wall clock (adjtimex(2) with no change): 1 when a time service
/// keeps it synchronised (no STA_UNSYNC, not TIME_ERROR), 0 when not, -1 with errno on failure.
int recorderd_kernel_clock_synchronised(void);

#endif
