#define _GNU_SOURCE
#include "CSystemSupport.h"

#include <fcntl.h>
#include <unistd.h>

#include <sys/prctl.h>
#include <sys/random.h>

ssize_t recorderd_getrandom(void *buffer, size_t length) {
    return getrandom(buffer, length, 0);
}

int recorderd_set_thread_name(const char *name) {
    return prctl(PR_SET_NAME, name, 0, 0, 0);
}

int recorderd_pipe_cloexec_nonblocking(int fds[2]) {
    return pipe2(fds, O_CLOEXEC | O_NONBLOCK);
}
