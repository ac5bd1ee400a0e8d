/*
 * freeze-thread TID [SECONDS]: stops one thread of a process, and only that one, as a wedged
 * sampling thread would be (a driver call that never returns), for the guest test of systemd's
 * watchdog (Tests/DeviceTests). SIGSTOP cannot do this: it stops every thread of the process,
 * the main loop with them. ptrace can: PTRACE_SEIZE then PTRACE_INTERRUPT stop the one thread
 * while the others run on.
 *
 * Prints "frozen TID" once the thread is stopped, then keeps it stopped until the process ends
 * (a fatal signal to the process is passed on, so systemd's SIGABRT and SIGKILL end it as they
 * would) or SECONDS pass (default 300; then the thread is let go). Exit status 0 when the
 * process ended, 2 when the time ran out, 1 on an error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

static void timed_out(int sig) {
    (void)sig;
    _exit(2); /* the tracer's exit detaches the thread, which runs on */
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: freeze-thread TID [SECONDS]\n");
        return 64;
    }
    pid_t tid = (pid_t)atoi(argv[1]);
    unsigned seconds = argc > 2 ? (unsigned)atoi(argv[2]) : 300;
    if (tid <= 0 || seconds == 0) {
        fprintf(stderr, "freeze-thread: bad TID or SECONDS\n");
        return 64;
    }
    signal(SIGALRM, timed_out);
    alarm(seconds);
    if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) != 0) {
        fprintf(stderr, "freeze-thread: PTRACE_SEIZE %d: %s\n", tid, strerror(errno));
        return 1;
    }
    if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) != 0) {
        fprintf(stderr, "freeze-thread: PTRACE_INTERRUPT %d: %s\n", tid, strerror(errno));
        return 1;
    }
    int announced = 0;
    for (;;) {
        int status = 0;
        pid_t got = waitpid(tid, &status, __WALL);
        if (got < 0) {
            if (errno == EINTR) continue;
            return errno == ECHILD ? 0 : 1;
        }
        if (WIFEXITED(status) || WIFSIGNALED(status)) return 0;
        if (!WIFSTOPPED(status)) continue;
        int sig = WSTOPSIG(status);
        int event = status >> 16;
        if (event == PTRACE_EVENT_STOP) {
            /* The interrupt's stop (or a group stop): the thread stays stopped. */
            if (!announced) {
                printf("frozen %d\n", tid);
                fflush(stdout);
                announced = 1;
            }
            continue;
        }
        if (event == PTRACE_EVENT_EXIT) {
            ptrace(PTRACE_CONT, tid, NULL, NULL);
            continue;
        }
        /* A signal for this thread: a fatal one goes on (the process ends as it would); any
           other is held back, and the thread stopped again. */
        if (sig == SIGABRT || sig == SIGKILL || sig == SIGTERM || sig == SIGSEGV || sig == SIGBUS) {
            ptrace(PTRACE_CONT, tid, NULL, (void *)(long)sig);
        } else {
            ptrace(PTRACE_CONT, tid, NULL, NULL);
            ptrace(PTRACE_INTERRUPT, tid, NULL, NULL);
        }
    }
}
