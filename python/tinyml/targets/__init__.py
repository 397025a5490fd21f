"""Compilation targets: the host JIT and the Cortex-M cores."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Target:
    """Where a model runs. `triple`/`cpu`/`float_abi` drive opt and llc;
    `max_accumulators` bounds a register tile (the FP registers left after
    a tile's loads); `int_tile` is a quantized tile's (int32 accumulators,
    input values per reduction step, columns of a matrix-vector tile),
    measured per core; `fpu`: float arithmetic in hardware (without it only
    integer models compile); `dsp`: the DSP extension's SIMD instructions
    (SXTB16, SMLAD); `armv6m`: Thumb-1 only, no 32x32->64-bit
    multiply and no divide instruction (the runtime brings the helpers
    LLVM calls instead);
    `unsupported` says why a known target cannot be built yet.

    How a core is run, for the Cortex-M ones: `unicorn_cpu`, the unicorn
    CPU model (a `unicorn.arm_const` name; None: the emulator does not run
    the core) that `targets/emulator.py` runs it on; `mca`, whether
    llvm-mca has a scheduling model of `cpu` for the emulator's cycle
    estimate; `qemu_board`, the QEMU machine the example firmware runs it on
    (`targets/qemu.py`; its Makefile names the same board)."""

    name: str
    index_bitwidth: int
    triple: str | None = None
    cpu: str | None = None
    float_abi: str | None = None
    max_accumulators: int = 20
    int_tile: tuple[int, int, int] = (8, 16, 4)
    fpu: bool = True
    dsp: bool = False
    armv6m: bool = False
    unsupported: str | None = None
    unicorn_cpu: str | None = None
    mca: bool = False
    qemu_board: str | None = None

    @property
    def is_host(self) -> bool:
        return self.triple is None


TARGETS = {
    # x86-64 has 16 vector registers for the JIT's scalar floats.
    "host": Target("host", 64, max_accumulators=12),
    # FPv4-SP / FPv5: 32 single-precision registers.
    "cortex-m4": Target("cortex-m4", 32, "thumbv7em-none-eabihf", "cortex-m4", "hard", 20,
                        dsp=True, unicorn_cpu="UC_CPU_ARM_CORTEX_M4", mca=True,
                        qemu_board="mps2-an386"),
    "cortex-m7": Target("cortex-m7", 32, "thumbv7em-none-eabihf", "cortex-m7", "hard", 20,
                        dsp=True, unicorn_cpu="UC_CPU_ARM_CORTEX_M7", mca=True,
                        qemu_board="mps2-an500"),
    # ARMv6-M: no FPU, no DSP extension, no 64-bit multiply (MULS only).
    # Wider int tiles measured faster there (KWS 21.4 M vs 27.1 M; FC-AE
    # 1.75 M with 8 columns, 1.92 M with 4, which the M4's SMLAD prefer).
    # llvm-mca has no scheduling model of the M0.
    "cortex-m0": Target("cortex-m0", 32, "thumbv6m-none-eabi", "cortex-m0", "soft",
                        int_tile=(20, 12, 8), fpu=False, armv6m=True,
                        unicorn_cpu="UC_CPU_ARM_CORTEX_M0"),
    # ARMv7-M without an FPU: the emulator runs it (its tests show Thumb-2
    # code without FP instructions), the compiler has no tiles measured on it.
    "cortex-m3": Target("cortex-m3", 32, "thumbv7m-none-eabi", "cortex-m3", "soft",
                        fpu=False, unicorn_cpu="UC_CPU_ARM_CORTEX_M3", mca=True,
                        unsupported="cortex-m3 is not a compile target: only the emulator "
                                    "runs it (no register tiles are measured on it)"),
}

#: The targets a model compiles for: those without `unsupported`.
COMPILE_TARGETS = tuple(name for name, target in TARGETS.items() if not target.unsupported)

DEFAULT_TARGET = "cortex-m4"

#: Where a Cortex-M model runs: the unicorn harness that measures it
#: (`emulator`), or the example firmware on QEMU's board (`qemu`).
EMULATORS = ("unicorn", "qemu")


class TargetError(ValueError):
    """An unknown or unsupported target."""


def lookup_target(name: str) -> Target:
    target = TARGETS.get(name)
    if target is None:
        raise TargetError(f"unknown target {name!r} (known: {', '.join(COMPILE_TARGETS)})")
    if target.unsupported:
        raise TargetError(target.unsupported)
    return target
