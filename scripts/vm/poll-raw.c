/*
 * poll-raw RATE SECONDS FILE...: the polled benchmark's peer (scripts/vm/polled-benchmark.sh), the
 * least a poller can do: at each absolute tick of RATE (clock_nanosleep on CLOCK_MONOTONIC), one
 * pread of each sysfs `raw` FILE, stamped with CLOCK_MONOTONIC midway through the reads, as
 * recorderd's polled IIO sampler does, without parsing beyond the integer, scaling, records,
 * rings or files. A tick missed by a whole period is skipped and counted, as recorderd does.
 *
 * Prints one line: "samples N missed M cpu_ns C" and then each sample's time in seconds, one per
 * line, for the same analysis as recorderd's records.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: poll-raw RATE SECONDS FILE...\n");
        return 64;
    }
    double rate = atof(argv[1]), seconds = atof(argv[2]);
    if (!(rate > 0 && rate <= 10000 && seconds > 0 && seconds <= 3600)) {
        fprintf(stderr, "poll-raw: RATE in (0, 10000], SECONDS in (0, 3600]\n");
        return 64;
    }
    int count = argc - 3;
    int fds[16];
    if (count > 16) return 64;
    for (int i = 0; i < count; i++) {
        fds[i] = open(argv[3 + i], O_RDONLY | O_CLOEXEC);
        if (fds[i] < 0) { perror(argv[3 + i]); return 1; }
    }
    long ticks = (long)(rate * seconds);
    double *times = calloc((size_t)ticks, sizeof(double));
    if (!times) return 1;
    long samples = 0, missed = 0, sum = 0;
    double period = 1.0 / rate, start = now(CLOCK_MONOTONIC) + period;
    double cpu0 = now(CLOCK_THREAD_CPUTIME_ID);
    for (long tick = 0; tick < ticks; tick++) {
        double due = start + (double)tick * period;
        struct timespec at = { (time_t)due, (long)((due - (double)(time_t)due) * 1e9) };
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) != 0) {}
        double before = now(CLOCK_MONOTONIC);
        if (before - due >= period) {
            long late = (long)((before - due) / period);
            missed += late;
            tick += late - 1;
            continue;
        }
        for (int i = 0; i < count; i++) {
            char text[32];
            ssize_t n = pread(fds[i], text, sizeof text - 1, 0);
            if (n <= 0) { perror("pread"); return 1; }
            text[n] = 0;
            sum += strtol(text, NULL, 10);
        }
        times[samples++] = (before + now(CLOCK_MONOTONIC)) / 2;
    }
    double cpu = now(CLOCK_THREAD_CPUTIME_ID) - cpu0;
    printf("samples %ld missed %ld cpu_ns %.0f checksum %ld\n", samples, missed, cpu * 1e9, sum);
    for (long i = 0; i < samples; i++) printf("%.9f\n", times[i]);
    return 0;
}
