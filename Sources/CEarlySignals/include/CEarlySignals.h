// recorderd's signal set-up before Swift's main runs.
#ifndef RECORDERD_EARLY_SIGNALS_H
#define RECORDERD_EARLY_SIGNALS_H

/// 1 once the constructor has installed the early SIGHUP handler (referenced from main, which also
/// makes sure the object is linked).
int recorderd_early_signals_installed(void);

/// 1 when a SIGHUP arrived before the reload service took over the signal (and forgets it).
int recorderd_take_early_sighup(void);

#endif
