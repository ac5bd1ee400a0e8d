// Linux process calls the Swift Glibc module does not import (GNU extensions), for the tests'
// ChildProcess.
#pragma once
#include <spawn.h>
#include <sys/types.h>

/// posix_spawn_file_actions_addclosefrom_np: close every descriptor from `from` up in the child.
int recorderd_spawn_closefrom(posix_spawn_file_actions_t *actions, int from);
