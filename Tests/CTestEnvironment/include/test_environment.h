// The environment of the test process, fixed before `main` (see test_environment.c).
#pragma once

/// The name of the JACK server the audio tests start (`JACK_DEFAULT_SERVER` of this process).
extern const char *const recorderd_test_jack_server;
