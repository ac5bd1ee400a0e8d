// A TCG plugin for qemu-user that counts the guest instructions a program executes (all of its
// threads, user space only, as callgrind's Ir) and writes the total to the file its `out=PATH`
// argument names: scripts/count-instructions.sh's counter for aarch64 (COUNT_COUNTER=qemu), where
// valgrind itself under qemu-user runs too slowly. Each translated block adds its instruction
// count when it runs (atomically: the threads of a program are vCPUs of their own).
//
//   cc -shared -fPIC -O2 -o qemu_insn_count.so qemu_insn_count.c
//   qemu-aarch64 -L ROOT -plugin ./qemu_insn_count.so,out=count.txt PROGRAM ARGS...
//
// The plugin API (QEMU's include/qemu/qemu-plugin.h, version 1: QEMU 4.2 to 8.x; Debian 12's
// qemu-user is 7.2) is declared here, only the calls this plugin makes.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;
struct qemu_plugin_tb;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_CB_RW_REGS };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, qemu_plugin_vcpu_udata_cb_t cb,
                                          enum qemu_plugin_cb_flags flags, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

static uint64_t executed;
static char *output;

static void block_ran(unsigned int vcpu, void *instructions) {
    (void)vcpu;
    __atomic_fetch_add(&executed, (uint64_t)(uintptr_t)instructions, __ATOMIC_RELAXED);
}

static void block_translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
    (void)id;
    qemu_plugin_register_vcpu_tb_exec_cb(tb, block_ran, QEMU_PLUGIN_CB_NO_REGS,
                                         (void *)(uintptr_t)qemu_plugin_tb_n_insns(tb));
}

static void finished(qemu_plugin_id_t id, void *userdata) {
    (void)id; (void)userdata;
    FILE *file = fopen(output, "w");
    if (file == NULL) { perror(output); return; }
    fprintf(file, "%llu\n", (unsigned long long)__atomic_load_n(&executed, __ATOMIC_RELAXED));
    fclose(file);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv) {
    (void)info;
    for (int i = 0; i < argc; i++)
        if (strncmp(argv[i], "out=", 4) == 0) output = strdup(argv[i] + 4);
    if (output == NULL) { fprintf(stderr, "qemu_insn_count: needs out=PATH\n"); return -1; }
    qemu_plugin_register_vcpu_tb_trans_cb(id, block_translated);
    qemu_plugin_register_atexit_cb(id, finished, NULL);
    return 0;
}
