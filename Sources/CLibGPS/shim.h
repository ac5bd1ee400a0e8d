#ifndef RECORDERD_CLIBGPS_SHIM_H
#define RECORDERD_CLIBGPS_SHIM_H
#include <gps.h>
#endif
