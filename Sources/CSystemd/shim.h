#ifndef RECORDERD_CSYSTEMD_SHIM_H
#define RECORDERD_CSYSTEMD_SHIM_H
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#include <systemd/sd-bus.h>
#include <sys/uio.h>
#endif
