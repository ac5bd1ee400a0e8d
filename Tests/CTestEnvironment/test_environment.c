// Sets the environment variables the test process needs for its whole run, in a constructor:
// before `main`, so before any thread exists. Changing the environment while other threads read
// it is undefined in glibc: `setenv` reallocates the `environ` array (and `unsetenv` moves its
// entries) under readers — `getenv` in libasound, libjack and SwiftNIO, Foundation's
// `ProcessInfo.environment` in `ChildProcess`, the `envp` of a spawn. CI saw it: a segfault in
// `strlen` under a test reading `environ` while the JACK test set its variables. So no test
// sets a variable once tests run (`EnvironmentHygieneTests` checks the sources), and what used to be
// set then is set here.
#define _GNU_SOURCE
#include "test_environment.h"
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const recorderd_test_jack_server = "recorderd-test";

__attribute__((constructor)) static void recorderd_test_environment(void) {
    // SwiftNIO traps, instead of printing a line, on work scheduled on an event loop that has shut
    // down; NIO reads the variable at the first such event. Children inherit it.
    setenv("SWIFTNIO_STRICT", "1", 1);
    // The in-process JACK client (the ALSA jack plugin under an `ALSASource`) reaches the tests'
    // server, and libjack never starts a server of its own (a child that would inherit every
    // descriptor the parallel tests hold open). `JACKServer.environment` gives children the same.
    setenv("JACK_DEFAULT_SERVER", recorderd_test_jack_server, 1);
    setenv("JACK_NO_START_SERVER", "1", 1);
    setenv("JACK_NO_AUDIO_RESERVATION", "1", 1);
    // libasound in this process sees the PCM `recorderd_jack` (that file includes ALSA's own
    // configuration, so every other PCM stays as it was). This file is Tests/CTestEnvironment/
    // test_environment.c, and the fixtures are in Tests/Fixtures.
    char path[PATH_MAX];
    const char *file = __FILE__;
    const char *folder = strstr(file, "/CTestEnvironment/");
    if (folder == NULL || (size_t)(folder - file) + 64 >= sizeof path) return;
    snprintf(path, sizeof path, "%.*s/Fixtures/audio/jack-capture.asound.conf", (int)(folder - file), file);
    setenv("ALSA_CONFIG_PATH", path, 1);
}
