#ifndef RECORDERD_CLIBIIO_SHIM_H
#define RECORDERD_CLIBIIO_SHIM_H
#include <iio.h>
#endif
