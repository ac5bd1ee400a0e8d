#ifndef RECORDERD_CZSTD_SHIM_H
#define RECORDERD_CZSTD_SHIM_H
#include <zstd.h>
#endif
