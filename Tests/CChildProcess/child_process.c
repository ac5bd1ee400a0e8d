#define _GNU_SOURCE
#include "child_process.h"
#include <unistd.h>

int recorderd_spawn_closefrom(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}
