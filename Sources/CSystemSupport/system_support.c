#include "CSystemSupport.h"

#include <sys/random.h>

ssize_t recorderd_getrandom(void *buffer, size_t length) {
    return getrandom(buffer, length, 0);
}
