/* A QEMU TCG plugin that counts the guest instructions one call executes:
   from the first block at `entry` (the model's function) to the first block
   back in the caller's code [caller, caller_end) (the firmware's main), as
   the unicorn harness counts from the entry to its return trap. It writes
   the count, in decimal, to the file `out` when QEMU exits.

     qemu-system-arm ... -plugin count_instructions.so,entry=A,caller=B,caller_end=C,out=FILE

   Built by targets/qemu.py with the host's C compiler. The declarations
   below are the part of QEMU's plugin API (docs/devel/tcg-plugins.rst,
   include/qemu/qemu-plugin.h, API version 1 as in QEMU 7.2) this file
   uses: Debian's qemu-system-arm exports the functions but ships no header. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;
struct qemu_plugin_tb;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };

void qemu_plugin_register_vcpu_tb_trans_cb(
    qemu_plugin_id_t id, void (*translated)(qemu_plugin_id_t, struct qemu_plugin_tb *));
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
                                          void (*executed)(unsigned int, void *),
                                          enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, void (*at_exit)(qemu_plugin_id_t, void *),
                                    void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

static uint64_t entry, caller, caller_end, executed;
static int counting, returned;
static char out_path[4096];

/* A block's address and instruction count, packed in its callback's data:
   Thumb addresses are below 2^32. */
static void block_executed(unsigned int vcpu, void *block) {
  (void)vcpu;
  uint64_t packed = (uint64_t)(uintptr_t)block;
  uint64_t address = packed >> 32;
  if (address == entry && !returned) counting = 1;
  if (counting && caller <= address && address < caller_end) {
    counting = 0;
    returned = 1;
  }
  if (counting) executed += packed & 0xffffffffu;
}

static void block_translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
  (void)id;
  uint64_t packed = (qemu_plugin_tb_vaddr(tb) << 32) | qemu_plugin_tb_n_insns(tb);
  qemu_plugin_register_vcpu_tb_exec_cb(tb, block_executed, QEMU_PLUGIN_CB_NO_REGS,
                                       (void *)(uintptr_t)packed);
}

/* Nothing is written for a call that did not return: the reader says so. */
static void write_count(qemu_plugin_id_t id, void *userdata) {
  (void)id;
  (void)userdata;
  if (!returned) return;
  FILE *file = fopen(out_path, "w");
  if (file == NULL) return;
  fprintf(file, "%llu\n", (unsigned long long)executed);
  fclose(file);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id,
                                                               const qemu_info_t *info, int argc,
                                                               char **argv) {
  (void)info;
  int given = 0;
  for (int i = 0; i < argc; i++) {
    if (strncmp(argv[i], "entry=", 6) == 0) {
      entry = strtoull(argv[i] + 6, NULL, 0) & ~1ull;
      given |= 1;
    } else if (strncmp(argv[i], "caller=", 7) == 0) {
      caller = strtoull(argv[i] + 7, NULL, 0) & ~1ull;
      given |= 2;
    } else if (strncmp(argv[i], "caller_end=", 11) == 0) {
      caller_end = strtoull(argv[i] + 11, NULL, 0) & ~1ull;
      given |= 8;
    } else if (strncmp(argv[i], "out=", 4) == 0 && strlen(argv[i] + 4) < sizeof out_path) {
      strcpy(out_path, argv[i] + 4);
      given |= 4;
    }
  }
  if (given != 15) {
    fprintf(stderr, "count_instructions: give entry=, caller=, caller_end= and out=\n");
    return -1;
  }
  qemu_plugin_register_vcpu_tb_trans_cb(id, block_translated);
  qemu_plugin_register_atexit_cb(id, write_count, NULL);
  return 0;
}
