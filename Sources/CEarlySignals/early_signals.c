// SIGHUP's default action ends the process. recorderd handles it (configuration reload) once its
// service group runs, a few hundred milliseconds after launch; a SIGHUP before that used to kill
// the daemon. This constructor runs as the executable is loaded, before main, and installs a
// handler that only notes the signal. The reload service's signal source replaces it when it is
// installed, then asks whether one came early and reloads if so: no SIGHUP is fatal, none is lost.
#include "CEarlySignals.h"

#include <signal.h>
#include <stdatomic.h>
#include <string.h>

// Set by the handler (on whichever thread takes the signal) and taken by the reload service on
// another thread: a lock-free atomic, which is async-signal-safe and, unlike a volatile
// sig_atomic_t, safe across threads (ThreadSanitizer reported the volatile one as a data race).
static atomic_int early_sighup = 0;
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the early SIGHUP flag must be lock-free to be set in a signal handler");
static int installed = 0;

static void recorderd_note_sighup(int signal) {
    (void)signal;
    atomic_store(&early_sighup, 1);
}

__attribute__((constructor)) static void recorderd_install_early_sighup(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = recorderd_note_sighup;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    installed = sigaction(SIGHUP, &action, 0) == 0;
}

int recorderd_early_signals_installed(void) {
    return installed;
}

int recorderd_take_early_sighup(void) {
    return atomic_exchange(&early_sighup, 0);
}
