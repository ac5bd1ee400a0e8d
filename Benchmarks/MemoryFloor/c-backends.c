/* The C libraries of recorderd's three backends, each used once, then wait (memory-floor.sh):
 * libiio's local context, libgps opening a connection (no gpsd listening is fine), libasound
 * capturing 4,800 frames from its "null" plugin. */
#include <alsa/asoundlib.h>
#include <gps.h>
#include <iio.h>
#include <stdio.h>
#include <unistd.h>

int main(void) {
    struct iio_context *context = iio_create_local_context();
    printf("iio devices: %u\n", context ? iio_context_get_devices_count(context) : 0);
    struct gps_data_t gps;
    printf("gps_open: %d\n", gps_open("127.0.0.1", "2947", &gps));
    snd_pcm_t *pcm;
    short frames[4800];
    if (snd_pcm_open(&pcm, "null", SND_PCM_STREAM_CAPTURE, 0) == 0
        && snd_pcm_set_params(pcm, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 1, 48000, 1, 100000) == 0) {
        printf("captured: %ld\n", (long)snd_pcm_readi(pcm, frames, 4800));
    }
    fflush(stdout);
    sleep(3);
    return 0;
}
