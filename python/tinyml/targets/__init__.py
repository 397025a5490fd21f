"""Compilation targets: the host JIT and the Cortex-M cores."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

#: The float ABIs of a Cortex-M object: float arguments in FP registers
#: (`hard`), in core registers with the FPU used inside (`softfp`), or no
#: FPU at all (`soft`: integer models only, as on a core without one).
FLOAT_ABIS = ("hard", "softfp", "soft")


@dataclass(frozen=True)
class Target:
    """Where a model runs. `triple`/`cpu`/`float_abi` (one of `FLOAT_ABIS`)
    drive opt and llc (`llvm_triple`, `llc_float_abi`, `llvm_attributes`);
    `features`, LLVM target features beyond the CPU's own (`+x` adds, `-x`
    removes: a Cortex-M55 built without Helium);
    `max_accumulators` bounds a register tile (the FP registers left after
    a tile's loads); `int_tile` is a quantized tile's (int32 accumulators,
    input values per reduction step, columns of a matrix-vector tile),
    measured per core; `fpu`: float arithmetic in hardware (without it only
    integer models compile); `dsp`: the DSP extension's SIMD instructions
    (SXTB16, SMLAD); `mve`: Helium, the M-profile vector extension (int8
    dot products of 16 values per instruction, VMLADAVA); `armv6m`: Thumb-1
    only, no 32x32->64-bit multiply and no divide instruction (the runtime
    brings the helpers LLVM calls instead).

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
    mve: bool = False
    armv6m: bool = False
    unicorn_cpu: str | None = None
    mca: bool = False
    qemu_board: str | None = None
    features: tuple[str, ...] = ()

    @property
    def is_host(self) -> bool:
        return self.triple is None

    @property
    def llvm_triple(self) -> str | None:
        """The triple (the EABI's `hf` variant for the hard-float ABI)."""
        return f"{self.triple}hf" if self.triple and self.float_abi == "hard" else self.triple

    @property
    def llc_float_abi(self) -> str:
        """llc's -float-abi: softfp is the soft ABI with the FPU's instructions."""
        return "hard" if self.float_abi == "hard" else "soft"

    @property
    def llvm_attributes(self) -> list[str]:
        """-mattr for opt and llc: `features`, and no FP registers with the
        soft ABI."""
        features = [*self.features, *(["-fpregs"] if self.float_abi == "soft" else [])]
        return [f"-mattr={','.join(features)}"] if features else []


TARGETS = {
    # x86-64 has 16 vector registers for the JIT's scalar floats.
    "host": Target("host", 64, max_accumulators=12),
    # FPv4-SP / FPv5: 32 single-precision registers.
    "cortex-m4": Target("cortex-m4", 32, "thumbv7em-none-eabi", "cortex-m4", "hard", 20,
                        dsp=True, unicorn_cpu="UC_CPU_ARM_CORTEX_M4", mca=True,
                        qemu_board="mps2-an386"),
    "cortex-m7": Target("cortex-m7", 32, "thumbv7em-none-eabi", "cortex-m7", "hard", 20,
                        dsp=True, unicorn_cpu="UC_CPU_ARM_CORTEX_M7", mca=True,
                        qemu_board="mps2-an500"),
    # ARMv6-M: no FPU, no DSP extension, no 64-bit multiply (MULS only).
    # Tiles of one pixel and four channels: its eight low registers hold
    # the accumulators, an input value, a weight and two pointers, each
    # weight one LDRB at an immediate offset (tinyml-unsigned-weights);
    # eight values a step (KWS 16.28 M; ResNet-8 65.6 M, 68.9 M with 16),
    # four columns of a matrix-vector product (FC-AE 1.149 M; 1.261 M with
    # 2, 1.820 M with 8). llvm-mca has no scheduling model of the M0.
    "cortex-m0": Target("cortex-m0", 32, "thumbv6m-none-eabi", "cortex-m0", "soft",
                        int_tile=(4, 8, 4), fpu=False, armv6m=True,
                        unicorn_cpu="UC_CPU_ARM_CORTEX_M0"),
    # ARMv6-M as the M0 (the same instructions, a two-stage pipeline): the
    # M0's tiles. unicorn has no M0+ model: it runs the M0's, which executes
    # the same ISA.
    "cortex-m0plus": Target("cortex-m0plus", 32, "thumbv6m-none-eabi", "cortex-m0plus", "soft",
                            int_tile=(4, 8, 4), fpu=False, armv6m=True,
                            unicorn_cpu="UC_CPU_ARM_CORTEX_M0"),
    # ARMv7-M without an FPU or the DSP extension: integer models only. The
    # M4's int tiles measured faster than the M0's here too (int8 KWS 7.65 M
    # against 9.17 M, FC-AE 0.695 M against 0.738 M): it has 13 registers
    # and a 32x32->64-bit multiply.
    "cortex-m3": Target("cortex-m3", 32, "thumbv7m-none-eabi", "cortex-m3", "soft",
                        fpu=False, unicorn_cpu="UC_CPU_ARM_CORTEX_M3", mca=True,
                        qemu_board="mps2-an385"),
    # ARMv8-M mainline with the DSP extension and FPv5-SP (32 single-precision
    # registers): the M4's tiles.
    "cortex-m33": Target("cortex-m33", 32, "thumbv8m.main-none-eabi", "cortex-m33", "hard", 20,
                         dsp=True, unicorn_cpu="UC_CPU_ARM_CORTEX_M33", qemu_board="mps2-an505"),
    # ARMv8.1-M with Helium (MVE) and FPv5: LLVM's MVE code generation
    # serves the vectorized kernels, int8 contractions are VMLADAVA dot
    # products (tinyml-contract-to-mve-dot), 64 values a reduction step
    # (QEMU, int8 KWS / VWW / ResNet-8 / FC-AE: 16 taps 2.17 / 6.06 / 10.57 /
    # 0.079 M, 48 2.23 / 6.23 / 5.20 / 0.085 M, 64 1.97 / 5.84 / 5.20 /
    # 0.075 M). unicorn has no M55: it runs on QEMU's mps3-an547 only (its
    # instructions counted by a QEMU plugin).
    "cortex-m55": Target("cortex-m55", 32, "thumbv8.1m.main-none-eabi", "cortex-m55", "hard", 20,
                         int_tile=(8, 64, 4), dsp=True, mve=True, qemu_board="mps3-an547"),
}

#: The targets a model compiles for.
COMPILE_TARGETS = tuple(TARGETS)

DEFAULT_TARGET = "cortex-m4"

#: Where a Cortex-M model runs: the unicorn harness that measures it
#: (`emulator`), or the example firmware on QEMU's board (`qemu`).
EMULATORS = ("unicorn", "qemu")


class TargetError(ValueError):
    """An unknown target, or a float ABI it cannot take."""


def lookup_target(name: str, float_abi: str | None = None) -> Target:
    """The compile target `name`, with `float_abi` (None: its default,
    hard where the core has an FPU)."""
    target = TARGETS.get(name)
    if target is None:
        raise TargetError(f"unknown target {name!r} (known: {', '.join(COMPILE_TARGETS)})")
    if float_abi is None or float_abi == target.float_abi:
        return target
    if float_abi not in FLOAT_ABIS:
        raise TargetError(f"unknown float ABI {float_abi!r} (known: {', '.join(FLOAT_ABIS)})")
    if target.is_host:
        raise TargetError("the host has no float ABI to choose: it is for a Cortex-M target")
    if not target.fpu:
        raise TargetError(f"{name} has no FPU: its objects use the soft-float ABI, not "
                          f"{float_abi}")
    return dataclasses.replace(target, float_abi=float_abi, fpu=float_abi != "soft")
