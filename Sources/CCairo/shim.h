#ifndef RECORDERD_CCAIRO_SHIM_H
#define RECORDERD_CCAIRO_SHIM_H
#include <cairo/cairo.h>
#include <cairo/cairo-svg.h>
#endif
