#define _GNU_SOURCE
#include "CRecorderRuntime.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/random.h>
#include <sys/timex.h>

ssize_t recorderd_getrandom(void *buffer, size_t length) {
    return getrandom(buffer, length, 0);
}

int recorderd_set_thread_name(const char *name) {
    return prctl(PR_SET_NAME, name, 0, 0, 0);
}

int recorderd_pipe_cloexec_nonblocking(int fds[2]) {
    return pipe2(fds, O_CLOEXEC | O_NONBLOCK);
}

extern char **environ;

static int spawn_with(const char *path, char *const argv[], char *const envp[], int input, int output, int errors,
                      int report, int new_process_group, pid_t *pid) {
    // A report descriptor that is 3 already would be dup2'd onto itself, which need not clear
    // its close-on-exec: a copy above 3 goes instead.
    int report_copy = -1;
    if (report == 3) {
        report_copy = fcntl(report, F_DUPFD_CLOEXEC, 4);
        if (report_copy < 0) return errno;
        report = report_copy;
    }
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int result = posix_spawn_file_actions_init(&actions);
    if (result != 0) {
        if (report_copy >= 0) close(report_copy);
        return result;
    }
    result = posix_spawnattr_init(&attributes);
    if (result != 0) {
        posix_spawn_file_actions_destroy(&actions);
        if (report_copy >= 0) close(report_copy);
        return result;
    }
    sigset_t empty, defaults;
    sigemptyset(&empty);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGHUP);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGTERM);
    sigaddset(&defaults, SIGPIPE);
    sigaddset(&defaults, SIGCHLD);
    short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
    // dup2 onto 0, 1 and 2 clears close-on-exec on the copies; the originals go with the rest.
    if (input >= 0) result = posix_spawn_file_actions_adddup2(&actions, input, 0);
    if (result == 0 && output >= 0) result = posix_spawn_file_actions_adddup2(&actions, output, 1);
    if (result == 0 && errors >= 0) result = posix_spawn_file_actions_adddup2(&actions, errors, 2);
    if (result == 0 && report >= 0) result = posix_spawn_file_actions_adddup2(&actions, report, 3);
    if (result == 0) result = posix_spawn_file_actions_addclosefrom_np(&actions, report >= 0 ? 4 : 3);
    if (result == 0) result = posix_spawnattr_setsigmask(&attributes, &empty);
    if (result == 0) result = posix_spawnattr_setsigdefault(&attributes, &defaults);
    if (result == 0 && new_process_group) {
        flags |= POSIX_SPAWN_SETPGROUP;
        result = posix_spawnattr_setpgroup(&attributes, 0);
    }
    if (result == 0) result = posix_spawnattr_setflags(&attributes, flags);
    if (result == 0) result = posix_spawn(pid, path, &actions, &attributes, argv, envp ? envp : environ);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    if (report_copy >= 0) close(report_copy);
    return result;
}

int recorderd_spawn_child(const char *path, char *const argv[], char *const envp[], int input, int output, int errors,
                          int new_process_group, pid_t *pid) {
    return spawn_with(path, argv, envp, input, output, errors, -1, new_process_group, pid);
}

int recorderd_spawn(const char *path, char *const argv[], int report, pid_t *pid) {
    return spawn_with(path, argv, NULL, -1, -1, -1, report, 0, pid);
}

pid_t recorderd_signal_on_parent_death(int signal) {
    if (prctl(PR_SET_PDEATHSIG, signal, 0, 0, 0) != 0) return -1;
    return getppid();
}

int recorderd_pidfd_open(pid_t pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

int recorderd_kernel_clock_synchronised(void) {
    struct timex t = {0};
    int state = adjtimex(&t);
    if (state < 0) return -1;
    return (state != TIME_ERROR && (t.status & STA_UNSYNC) == 0) ? 1 : 0;
}
