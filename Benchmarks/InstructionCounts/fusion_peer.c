// The peer of Benchmarks/InstructionCounts/fusion.swift: x-io's Fusion AHRS (C, built by
// scripts/count-instructions.sh from PyPI imufusion's source distribution, not kept in this
// repository) on the same walk's samples, one update per sample with its default settings.
// Usage: fusion-c WALK.csv N
#include <stdio.h>
#include <stdlib.h>
#include "Fusion.h"

int main(int argc, char **argv) {
    if (argc != 3) return 2;
    FILE *file = fopen(argv[1], "r");
    if (!file) return 1;
    static float rows[100000][6];
    int count = 0;
    char line[512];
    fgets(line, sizeof line, file); // header
    while (count < 100000 && fgets(line, sizeof line, file)) {
        double index;
        if (sscanf(line, "%lf,%f,%f,%f,%f,%f,%f", &index, &rows[count][0], &rows[count][1], &rows[count][2],
                   &rows[count][3], &rows[count][4], &rows[count][5]) == 7) count++;
    }
    fclose(file);
    long n = atol(argv[2]);
    FusionAhrs ahrs;
    FusionAhrsInitialise(&ahrs);
    FusionAhrsSetSamplePeriod(&ahrs, 1e-4f);
    for (long i = 0; i < n; i++) {
        const float *r = rows[i % count];
        const FusionVector accelerometer = {.axis = {r[0], r[1], r[2]}};
        const FusionVector gyroscope = {.axis = {r[3], r[4], r[5]}}; // degrees per second
        FusionAhrsUpdateNoMagnetometer(&ahrs, gyroscope, accelerometer);
    }
    const FusionQuaternion q = FusionAhrsGetQuaternion(&ahrs);
    printf("%f %f %f %f\n", q.element.w, q.element.x, q.element.y, q.element.z);
    return 0;
}
