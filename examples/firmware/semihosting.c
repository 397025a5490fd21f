#include "semihosting.h"

enum {
  SYS_OPEN = 0x01,
  SYS_CLOSE = 0x02,
  SYS_WRITE0 = 0x04,
  SYS_WRITE = 0x05,
  SYS_READ = 0x06,
  SYS_EXIT = 0x18,
};

/* SYS_EXIT's reason codes. */
enum {
  ADP_STOPPED_APPLICATION_EXIT = 0x20026,
  ADP_STOPPED_RUNTIME_ERROR_UNKNOWN = 0x20023,
};

/* SYS_OPEN's mode numbers, as ISO C's fopen modes. */
enum { MODE_RB = 1, MODE_WB = 5 };

/* On M-profile the call is BKPT 0xAB: r0 the operation, r1 its argument
   (usually a pointer to a block of words), the result in r0. */
static uintptr_t call(uintptr_t operation, const void *argument) {
  register uintptr_t r0 __asm__("r0") = operation;
  register const void *r1 __asm__("r1") = argument;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

static size_t length(const char *text) {
  size_t n = 0;
  while (text[n] != '\0') n++;
  return n;
}

int sh_open(const char *path, const char *mode) {
  uintptr_t block[3] = {(uintptr_t)path, mode[0] == 'w' ? MODE_WB : MODE_RB, length(path)};
  return (int)call(SYS_OPEN, block);
}

size_t sh_read(int handle, void *buffer, size_t bytes) {
  uintptr_t block[3] = {(uintptr_t)handle, (uintptr_t)buffer, bytes};
  return call(SYS_READ, block);
}

size_t sh_write(int handle, const void *buffer, size_t bytes) {
  uintptr_t block[3] = {(uintptr_t)handle, (uintptr_t)buffer, bytes};
  return call(SYS_WRITE, block);
}

void sh_close(int handle) {
  uintptr_t block[1] = {(uintptr_t)handle};
  call(SYS_CLOSE, block);
}

void sh_puts(const char *text) { call(SYS_WRITE0, text); }

void sh_exit(int success) {
  /* On AArch32 SYS_EXIT takes the reason code itself, not a block. */
  call(SYS_EXIT, (const void *)(uintptr_t)(success ? ADP_STOPPED_APPLICATION_EXIT
                                                   : ADP_STOPPED_RUNTIME_ERROR_UNKNOWN));
  for (;;) {
  }
}
