/* ARM semihosting: the firmware's files and console are the debugger's (or
   QEMU's, with -semihosting-config enable=on,target=native). Operations and
   numbers from Arm's "Semihosting for AArch32 and AArch64" specification. */
#ifndef SEMIHOSTING_H
#define SEMIHOSTING_H

#include <stddef.h>
#include <stdint.h>

/* A handle, or -1 when the file cannot be opened. `mode` is "rb" or "wb". */
int sh_open(const char *path, const char *mode);
/* Bytes NOT read or written: 0 when all of them were. */
size_t sh_read(int handle, void *buffer, size_t bytes);
size_t sh_write(int handle, const void *buffer, size_t bytes);
void sh_close(int handle);
/* Writes a NUL-terminated string to the console. */
void sh_puts(const char *text);
/* Ends the program: QEMU exits with status 0 when `success`, 1 otherwise. */
__attribute__((noreturn)) void sh_exit(int success);

#endif
