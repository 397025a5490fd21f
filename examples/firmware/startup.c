/* Vector table and reset handler for a Cortex-M3, M4, M7, M33 or M55 with no
   vendor library: what the CMSIS startup files do, reduced to what a model
   needs. */
#include <stdint.h>

#include "semihosting.h"

extern uint32_t __data_start[], __data_end[], __data_load[], __bss_start[], __bss_end[];
extern uint32_t __stack_top[];

int main(void);

/* Coprocessor Access Control Register: CP10 and CP11 are the FPU. */
#define CPACR (*(volatile uint32_t *)0xE000ED88u)

/* Runs after the FPU is on, in a function of its own: the compiler may use
   floating-point registers anywhere in it (for a wide copy, say), and none
   of that may execute before CPACR enables them. */
__attribute__((noinline, noreturn)) static void start(void) {
  for (uint32_t *src = __data_load, *dst = __data_start; dst < __data_end;) *dst++ = *src++;
  for (uint32_t *dst = __bss_start; dst < __bss_end;) *dst++ = 0;
  sh_exit(main() == 0);
}

__attribute__((noreturn)) void Reset_Handler(void) {
#ifdef __ARM_FP /* built to use the FPU (hard or softfp): turn it on */
  CPACR |= 0xFu << 20; /* CP10 and CP11: full access */
  __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
  start();
}

/* A fault is a defect (of the model, the firmware or the board's memory
   map): report it and stop, rather than hang. */
__attribute__((noreturn)) static void Fault_Handler(void) {
  sh_puts("firmware: fault\n");
  sh_exit(0);
}

/* The ARMv7-M exception table (ARMv8-M's adds SecureFault in the first
   reserved word): the initial stack pointer, then the handlers of reset,
   NMI, HardFault, MemManage, BusFault, UsageFault, four reserved words,
   SVCall, DebugMonitor, one reserved, PendSV, SysTick. The firmware enables
   no interrupt, so no IRQ vectors follow. */
__attribute__((section(".vectors"), used)) static void (*const vectors[16])(void) = {
    (void (*)(void))__stack_top,
    Reset_Handler,
    Fault_Handler,
    Fault_Handler,
    Fault_Handler,
    Fault_Handler,
    Fault_Handler,
    0,
    0,
    0,
    0,
    Fault_Handler,
    Fault_Handler,
    0,
    Fault_Handler,
    Fault_Handler,
};
