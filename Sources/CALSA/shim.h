#ifndef RECORDERD_CALSA_SHIM_H
#define RECORDERD_CALSA_SHIM_H
#include <alsa/asoundlib.h>
#endif
