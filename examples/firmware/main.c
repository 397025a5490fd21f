/* One inference of a tinyml model on the board. Each input is read from the
   file input<k>.bin, each output written to output<k>.bin, as raw bytes in
   the model's own layout and types, through semihosting (QEMU's, or a
   debugger's on a real board); a streaming model's state input, which the
   call writes its next value over, is written back to state<k>.bin. In
   your own firmware keep the arena, the states and the call; the files
   stand for your sensor and for what you do with the outputs.

   Built with -DMODEL_HEADER='"kws_dscnn.h"' -DMODEL_MACRO=TINYML_KWS_DSCNN
   (the Makefile derives both from the compiled folder). */
#include <stdint.h>

#include MODEL_HEADER
#include "semihosting.h"

#define PASTE_(a, b) a##b
#define PASTE(a, b) PASTE_(a, b)
/* MODEL(_ARENA_BYTES) is TINYML_KWS_DSCNN_ARENA_BYTES for the KWS model. */
#define MODEL(suffix) PASTE(MODEL_MACRO, suffix)

/* The model's scratch memory: static, in .bss, aligned as the header says. */
static uint8_t arena[MODEL(_ARENA_BYTES)] __attribute__((aligned(MODEL(_ARENA_ALIGN))));

static const uint32_t input_bytes[] = MODEL(_INPUT_BYTES);
static const uint32_t output_bytes[] = MODEL(_OUTPUT_BYTES);
static const uint32_t input_is_state[] = MODEL(_INPUT_IS_STATE);

/* Free RAM between .bss and the stack (mps2.ld): the tensors go there, so
   that this file fits any model. */
extern uint8_t __free_start[], __free_end[];

static const char *tensor_file(const char *kind, unsigned index) {
  static char name[24];
  char *p = name;
  while (*kind) *p++ = *kind++;
  char digits[10];
  int n = 0;
  do digits[n++] = (char)('0' + index % 10); while ((index /= 10) != 0);
  while (n) *p++ = digits[--n];
  for (const char *suffix = ".bin"; *suffix;) *p++ = *suffix++;
  *p = '\0';
  return name;
}

static int fail(const char *what, const char *file) {
  sh_puts("firmware: ");
  sh_puts(what);
  sh_puts(file);
  sh_puts("\n");
  return 1;
}

/* Writes `bytes` of `data` to the file <kind><index>.bin; 1 on failure. */
static int write_tensor(const char *kind, unsigned index, const void *data, uint32_t bytes) {
  const char *name = tensor_file(kind, index);
  int file = sh_open(name, "wb");
  if (file == -1) return fail("cannot create ", name);
  size_t missing = sh_write(file, data, bytes);
  sh_close(file);
  return missing != 0 ? fail("cannot write ", name) : 0;
}

/* Carves `bytes` from the free RAM, 16-byte aligned; 0 when it is full. */
static uint8_t *allocate(uint8_t **next, uint32_t bytes) {
  uint8_t *start = (uint8_t *)(((uintptr_t)*next + 15u) & ~(uintptr_t)15u);
  if (start > __free_end || (uint32_t)(__free_end - start) < bytes) return 0;
  *next = start + bytes;
  return start;
}

/* A check of the model, not needed in a product: when arena_fill.bin
   exists, its bytes are repeated over the arena before the inference, so a
   model that read memory it had not written would change its outputs. */
static int fill_arena(void) {
  int file = sh_open("arena_fill.bin", "rb");
  if (file == -1) return 0;
  uint8_t pattern[16];
  size_t missing = sh_read(file, pattern, sizeof pattern);
  sh_close(file);
  size_t length = sizeof pattern - missing;
  if (length == 0) return fail("empty file ", "arena_fill.bin");
  for (size_t i = 0; i < sizeof arena; i++) arena[i] = pattern[i % length];
  sh_puts("firmware: arena filled\n");
  return 0;
}

int main(void) {
  void *inputs[MODEL(_INPUT_COUNT)];
  void *outputs[MODEL(_OUTPUT_COUNT)];
  uint8_t *next = __free_start;
  for (unsigned k = 0; k < MODEL(_INPUT_COUNT); k++) {
    const char *name = tensor_file("input", k);
    if ((inputs[k] = allocate(&next, input_bytes[k])) == 0) return fail("no RAM left for ", name);
    int file = sh_open(name, "rb");
    if (file == -1) return fail("cannot open ", name);
    size_t missing = sh_read(file, inputs[k], input_bytes[k]);
    sh_close(file);
    if (missing != 0) return fail("too few bytes in ", name);
  }
  for (unsigned k = 0; k < MODEL(_OUTPUT_COUNT); k++) {
    if ((outputs[k] = allocate(&next, output_bytes[k])) == 0)
      return fail("no RAM left for ", tensor_file("output", k));
  }
  if (fill_arena() != 0) return 1;

  MODEL(_INVOKE)(inputs, outputs, arena);

  for (unsigned k = 0; k < MODEL(_OUTPUT_COUNT); k++)
    if (write_tensor("output", k, outputs[k], output_bytes[k]) != 0) return 1;
  for (unsigned k = 0; k < MODEL(_INPUT_COUNT); k++)
    if (input_is_state[k] && write_tensor("state", k, inputs[k], input_bytes[k]) != 0) return 1;
  sh_puts("firmware: " MODEL(_NAME) " ran\n");
  return 0;
}
